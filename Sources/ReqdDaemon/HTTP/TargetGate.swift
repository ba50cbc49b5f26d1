import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ReqdCore

/// The one way out to the network while a target policy is set: an HTTP `CONNECT` proxy on
/// loopback that the daemon's HTTP client opens every connection through.
///
/// AsyncHTTPClient resolves names and follows redirects itself and offers no hook to see the
/// address it connects to. Through the gate, every connection, a redirect's included, is a
/// `CONNECT host:port` that the gate resolves once, checks against the policy on every address
/// the name gave, and then connects to one of those same addresses. A name that answers
/// differently the second time (DNS rebinding) is never asked twice. A refused target gets no
/// connection at all.
///
/// Only the daemon can use it: each `CONNECT` must carry a random credential made at start and
/// kept in memory, so other local users cannot borrow the daemon's network access.
///
/// The client learns only that the proxy refused; why is kept here per `host:port`
/// (`failure(for:)`) for the executor to put in the job's error.
public final class TargetGate: Sendable {
    /// Why the gate gave no tunnel to a target.
    public enum Failure: Sendable, Equatable {
        /// The policy refuses one of the target's addresses.
        case denied(TargetPolicy.Denial)
        /// The network cannot reach it now: no route, or name resolution failing for now.
        case unreachable(String)
        /// Any other failure: the name does not exist, the connection was refused or timed out.
        case failed(String)
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// What each connection to the gate works with.
    let checkpoint: Checkpoint
    private let listener: any Channel

    /// Starts listening on an ephemeral loopback port.
    public init(policy: TargetPolicy, settings: HTTPSettings, group: any EventLoopGroup, logger: Logger) throws {
        let checkpoint = Checkpoint(policy: policy, settings: settings)
        self.checkpoint = checkpoint
        listener = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPause(logger: logger, what: "the target gate's connections"))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                    // Framing by hand: a 200 to CONNECT has no body, and the refusals say `content-length: 0`.
                    var framing = HTTPResponseEncoder.Configuration()
                    framing.automaticallySetFramingHeaders = false
                    let encoder = HTTPResponseEncoder(configuration: framing)
                    try sync.addHandler(decoder)
                    try sync.addHandler(encoder)
                    try sync.addHandler(ConnectHandler(checkpoint: checkpoint, decoder: decoder, encoder: encoder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = listener.localAddress?.port ?? 0
    }

    /// Why the last tunnel to `host:port` was refused, if one was within `FailureLog.lifetime`.
    public func failure(for hostPort: String) -> Failure? {
        checkpoint.failures.withLock { $0.failure(for: hostPort.lowercased(), now: .now()) }
    }

    /// The address the tunnel reached whose client end is on local port `port`, while it is open.
    public func upstream(forClientPort port: Int) -> String? {
        checkpoint.tunnels.withLock { $0[port]?.address }
    }

    /// Stops listening; tunnels already open end with their connections.
    public func close() {
        try? listener.close().wait()
    }
}
