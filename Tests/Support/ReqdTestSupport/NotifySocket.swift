import Glibc

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`, for tests that read what the
/// daemon tells systemd.
public enum NotifySocket {
    /// Why the socket could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A bound `AF_UNIX` datagram socket at `path`, reading with `timeoutMicros` at most per `recv`
    /// (none when 0).
    public static func bind(path: String, timeoutMicros: Int = 0) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "bind \(path): errno \(code)")
        }
        if timeoutMicros > 0 {
            var timeout = timeval(tv_sec: timeoutMicros / 1_000_000, tv_usec: timeoutMicros % 1_000_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        return descriptor
    }
}
