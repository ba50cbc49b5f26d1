import NIOCore
import NIOPosix

extension TargetGate {
    /// Answers NIO's connector with the addresses the gate already resolved and checked, so the
    /// connection races both families as usual but can only reach an address the policy allowed.
    struct CheckedResolver: Resolver, Sendable {
        let addresses: [SocketAddress]
        let loop: any EventLoop

        func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
            loop.makeSucceededFuture(addresses.filter { if case .v4 = $0 { true } else { false } })
        }

        func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
            loop.makeSucceededFuture(addresses.filter { if case .v6 = $0 { true } else { false } })
        }

        func cancelQueries() {}
    }
}
