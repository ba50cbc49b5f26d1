import Foundation
import Synchronization

/// An HTTP `CONNECT` proxy on 127.0.0.1 for tests: it records each tunnel asked for with the
/// `Proxy-Authorization` it came with, answers 407 when a required credential is missing, opens
/// the target, answers 200, and copies bytes both ways until either side closes.
///
/// Blocking sockets and a thread per direction: a test proxy carries a handful of tunnels.
public final class TestConnectProxy: Sendable {
    /// One `CONNECT` the proxy received.
    public struct Tunnel: Sendable, Equatable {
        /// The `host:port` asked for.
        public var target: String
        /// The `Proxy-Authorization` header, if any.
        public var authorization: String?
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let tunnelsSoFar = Mutex<[Tunnel]>([])
    private let required: String?

    /// Starts listening; `authorization`, when given, is the `Proxy-Authorization` value every
    /// `CONNECT` must carry.
    public init(requiring authorization: String? = nil) throws {
        required = authorization
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// Every `CONNECT` so far, in order.
    public var tunnels: [Tunnel] { tunnelsSoFar.withLock { $0 } }

    /// Stops accepting; open tunnels end when their sides close.
    public func shutdown() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ client: Int32) {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.containsHeadEnd, head.count < 16_384 {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else {
                close(client)
                return
            }
            head += buffer[..<count]
        }
        guard let end = head.headEnd else {
            close(client)
            return
        }
        let lines = String(decoding: head[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let request = lines.first?.split(separator: " ") ?? []
        let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        guard request.count == 3, request[0] == "CONNECT" else {
            Self.send("HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n", to: client)
            close(client)
            return
        }
        let target = String(request[1])
        tunnelsSoFar.withLock { $0.append(Tunnel(target: target, authorization: authorization)) }
        if let required, authorization != required {
            Self.send("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n", to: client)
            close(client)
            return
        }
        guard let upstream = Self.connect(to: target) else {
            Self.send("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n", to: client)
            close(client)
            return
        }
        Self.send("HTTP/1.1 200 Connection established\r\n\r\n", to: client)
        let early = Array(head[(end + 4)...])
        if !early.isEmpty { Self.send(early, to: upstream) }
        let done = DispatchGroup()
        for (from, to) in [(client, upstream), (upstream, client)] {
            done.enter()
            Thread {
                Self.pump(from: from, to: to)
                done.leave()
            }.start()
        }
        done.wait()
        close(client)
        close(upstream)
    }

    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0, send(Array(buffer[..<count]), to: destination) else { break }
        }
        Glibc.shutdown(destination, Int32(SHUT_WR))
    }

    @discardableResult
    private static func send(_ text: String, to descriptor: Int32) -> Bool { send(Array(text.utf8), to: descriptor) }

    @discardableResult
    private static func send(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// A blocking connection to `host:port`, or nil.
    private static func connect(to target: String) -> Int32? {
        guard let colon = target.lastIndex(of: ":") else { return nil }
        var host = String(target[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = String(target[target.index(after: colon)...])
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let descriptor = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if descriptor >= 0 {
                if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return descriptor }
                close(descriptor)
            }
            entry = current.pointee.ai_next
        }
        return nil
    }
}

extension [UInt8] {
    /// Where the blank line that ends an HTTP head begins, if it has arrived.
    fileprivate var headEnd: Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index
        }
        return nil
    }

    fileprivate var containsHeadEnd: Bool { headEnd != nil }
}
