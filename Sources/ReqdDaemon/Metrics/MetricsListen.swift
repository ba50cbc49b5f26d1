import Glibc

/// Where the metrics endpoint listens (`metrics.listen`): nowhere, a Unix socket, or a loopback port.
///
/// Only loopback: the metrics name no job, key or host, but they say how busy the daemon is and
/// how its targets answer, and the endpoint has no authentication of its own. A Unix socket takes
/// `socket.mode` and `socket.group`, as the control socket does.
public enum MetricsListen: Sendable, Hashable, CustomStringConvertible {
    /// No endpoint (the default): the metrics are still on the control socket's `metrics` operation.
    case off
    /// A Unix socket at this absolute path.
    case unix(String)
    /// A TCP port on a loopback address (`127.0.0.1`, any of 127.0.0.0/8, or `::1`); port 0 lets
    /// the kernel pick one, which the daemon logs.
    case loopback(host: String, port: Int)

    /// Reads `""`, `unix:/path`, `/path`, `127.0.0.1:9464`, `[::1]:9464` or `localhost:9464`.
    public init(parsing text: String) throws(DaemonError) {
        if text.isEmpty {
            self = .off
            return
        }
        let path = text.hasPrefix("unix:") ? String(text.dropFirst(5)) : text
        if path.hasPrefix("/") {
            self = .unix(path)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else {
            throw .invalidSetting("metrics.listen", "must be a Unix socket path or HOST:PORT on loopback, such as 127.0.0.1:9464; got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        guard Self.isLoopback(host) else {
            throw .invalidSetting(
                "metrics.listen", "must be on loopback (127.0.0.0/8 or ::1) or a Unix socket: the endpoint has no authentication; got '\(text)'")
        }
        self = .loopback(host: host, port: port)
    }

    /// Whether `host` is a numeric address in 127.0.0.0/8 or `::1`, read as the kernel reads it
    /// (`inet_pton`, which takes no sign, leading zero or name).
    private static func isLoopback(_ host: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    public var description: String {
        switch self {
        case .off: ""
        case .unix(let path): "unix:" + path
        case .loopback(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}
