import Foundation
import Logging
import ReqdDaemon
import ReqdProtocol
import Testing

/// A blocking test client that speaks raw lines, so tests can send anything at all.
final class LineClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Events read while waiting for a reply, handed out first by `next()`.
    private var stashed: [[String: Any]] = []

    init(path: String, timeoutSeconds: Int = 5) throws {
        fd = try UnixSocket.connect(path: path)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// The socket, for tests that write to it directly.
    var descriptor: Int32 { fd }

    func sendRaw(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }

    func send(_ line: String) { sendRaw(Array((line + "\n").utf8)) }

    func send(_ object: [String: Any]) {
        send(String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// The next line as a JSON object, or nil on timeout or close.
    func next() -> [String: Any]? {
        if !stashed.isEmpty { return stashed.removeFirst() }
        return readLine()
    }

    private func readLine() -> [String: Any]? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    /// Reads and discards everything until the daemon closes the connection; false on timeout.
    func drainUntilClosed() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Closes the write side, as `socat` and `nc -U` do at the end of their input; reading goes on.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Every line until the daemon closes the connection, or nil on timeout.
    func linesUntilClosed() -> [[String: Any]]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count == 0 { break }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
        var lines = stashed
        stashed = []
        for line in buffer.split(separator: 10) {
            lines.append((try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:])
        }
        buffer = []
        return lines
    }

    /// Reads until a reply (not an event) arrives.
    func reply() -> [String: Any]? {
        while let line = readLine() {
            if line["event"] == nil { return line }
            stashed.append(line)
        }
        return nil
    }

    /// Reads until an event of this type arrives.
    func event(_ type: String) -> [String: Any]? {
        while let line = next() {
            if line["event"] as? String == type { return line }
        }
        return nil
    }

    /// Sends a request and returns its reply.
    func call(_ object: [String: Any]) -> [String: Any]? {
        send(object)
        return reply()
    }
}
