import Foundation
import ReqdProtocol

/// A blocking Unix-socket connection that writes pre-built request lines and counts reply lines.
final class BenchSocket: @unchecked Sendable {
    // @unchecked Sendable: one thread writes and one thread reads; they share only the descriptor.
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var pending: [UInt8] = []

    init(path: String) throws {
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            throw BenchError("\(error)")
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
            guard written > 0 else { throw BenchError("write failed") }
            offset += written
        }
    }

    /// Reads the next complete line.
    func readLine() throws -> [UInt8] {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                return line
            }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { throw BenchError("the daemon closed the connection or timed out") }
            pending += buffer[..<count]
        }
    }

    /// Sends a request and waits for its reply line; returns whether it was ok.
    func roundTrip(_ line: [UInt8]) throws -> Bool {
        try write(line)
        return Self.isOK(try readLine())
    }

    /// What every accepted reply line holds.
    static let okMarker = Array("\"ok\":true".utf8)

    /// Whether a reply line says `"ok":true` (key order is not fixed, so search the whole line).
    static func isOK(_ reply: [UInt8]) -> Bool {
        guard reply.count >= okMarker.count else { return false }
        for start in 0...(reply.count - okMarker.count) where reply[start] == okMarker[0] {
            if reply[start..<(start + okMarker.count)].elementsEqual(okMarker) { return true }
        }
        return false
    }
}
