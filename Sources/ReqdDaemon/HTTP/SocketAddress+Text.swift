import NIOCore

extension SocketAddress {
    /// `IP:port`, with an IPv6 address in brackets, for an attempt log; nil for a Unix socket.
    var hostPortText: String? {
        guard let ip = ipAddress, let port else { return nil }
        if case .v6 = self { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
