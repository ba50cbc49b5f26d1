import NIOCore

extension SocketAddress {
    /// The address's 4 or 16 bytes; nil for a Unix socket.
    var ipBytes: [UInt8]? {
        switch self {
        case .v4(let address):
            withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address):
            withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        case .unixDomainSocket:
            nil
        }
    }
}
