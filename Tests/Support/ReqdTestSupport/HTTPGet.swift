import Foundation

/// A blocking `GET` over a Unix socket or loopback TCP, for tests of the metrics endpoint: it
/// sends `Connection: close` and reads the whole answer.
public enum HTTPGet {
    /// The answer's status, headers (names lowercased) and body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
    }

    /// Requests `path` from the server at `address`: `unix:/path` or `HOST:PORT`.
    public static func fetch(_ address: String, path: String = "/metrics", method: String = "GET") throws -> Answer {
        let descriptor = try open(address)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "\(method) \(path) HTTP/1.1\r\nHost: reqd\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure("no HTTP answer from \(address): \(text)") }
        let head = text[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Failure("bad status line from \(address): \(text.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    /// Why a fetch failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// A connected socket to `address` (`unix:/path` or `HOST:PORT`), for tests that hold connections open.
    public static func open(_ address: String) throws -> Int32 {
        if address.hasPrefix("unix:") {
            let path = String(address.dropFirst(5))
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            return try connect(descriptor, to: socketAddress, naming: path)
        }
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw Failure("bad address \(address)")
        }
        let host = String(address[..<colon])
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr.s_addr = inet_addr(host)
        return try connect(descriptor, to: socketAddress, naming: address)
    }

    /// Connects `descriptor` to an address of either family; closes it on failure.
    private static func connect<Address>(_ descriptor: Int32, to address: Address, naming name: String) throws -> Int32 {
        var address = address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure("cannot connect to \(name): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}
