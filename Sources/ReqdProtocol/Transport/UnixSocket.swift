import Glibc

/// Opens Unix-domain sockets by path: the one place the daemon, the client, the benchmark and the
/// tests build a `sockaddr_un`.
public enum UnixSocket {
    /// Why a socket could not be opened.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The step that failed.
        public enum Code: Sendable, Equatable {
            /// The path does not fit in a `sockaddr_un`.
            case pathTooLong
            /// `socket(2)` refused.
            case socket
            /// `connect(2)` refused: nothing listens there, or it is not a socket.
            case connect
            /// `bind(2)` refused.
            case bind
        }

        public var code: Code
        public var path: String
        /// The `errno` of the failed call; 0 for `pathTooLong`.
        public var errorNumber: Int32

        /// What `strerror` says about `errorNumber`, or the length limit.
        public var reason: String {
            code == .pathTooLong
                ? "the path is \(path.utf8.count) bytes; Unix sockets allow at most \(UnixSocket.maxPathBytes)"
                : String(cString: strerror(errorNumber))
        }

        public var description: String {
            switch code {
            case .pathTooLong: "socket path too long: \(path) (\(reason))"
            case .socket: "cannot create a socket: \(reason)"
            case .connect: "cannot connect to \(path): \(reason)"
            case .bind: "cannot bind \(path): \(reason)"
            }
        }
    }

    /// The longest path a `sockaddr_un` holds (108 bytes with the terminating NUL).
    public static let maxPathBytes = 107

    /// A blocking, close-on-exec `SOCK_STREAM` descriptor connected to `path`; the caller closes it.
    public static func connect(path: String) throws(Failure) -> Int32 {
        try open(path: path, type: Int32(SOCK_STREAM.rawValue), step: .connect, systemConnect)
    }

    /// A close-on-exec descriptor of `type` (such as `SOCK_DGRAM`) bound to `path`; the caller closes it.
    ///
    /// Used for a notify socket that receives `READY=1`, and by tests to leave a stale socket file behind.
    public static func bind(path: String, type: Int32) throws(Failure) -> Int32 {
        try open(path: path, type: type, step: .bind, systemBind)
    }

    private static func open(
        path: String, type: Int32, step: Failure.Code,
        _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) throws(Failure) -> Int32 {
        let bytes = path.utf8
        guard bytes.count <= maxPathBytes else { throw Failure(code: .pathTooLong, path: path, errorNumber: 0) }
        let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(code: .socket, path: path, errorNumber: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let failure = Failure(code: step, path: path, errorNumber: errno)
            close(fd)
            throw failure
        }
        return fd
    }
}

// Outside the enum, where `connect` and `bind` name the system calls rather than its methods.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

private func systemBind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(fd, address, length)
}
