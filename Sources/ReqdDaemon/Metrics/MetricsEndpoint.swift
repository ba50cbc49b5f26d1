import Glibc
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The optional HTTP endpoint a Prometheus server scrapes: `GET /metrics` on a Unix socket or a
/// loopback port (`metrics.listen`), on an event loop of its own.
///
/// A scrape reads the scheduler's counts with one hop to its queue (`SchedulerLoop.exposition()`),
/// as `status` does; everything else is the registry's own locks and atomics. The endpoint's
/// thread is not the control socket's, so a slow scraper never holds up a client. Any local user
/// may reach a loopback port, so the endpoint keeps its cost bounded: at most
/// `maxConnections` connections at once (the next is closed at once), one request each (every
/// answer says `Connection: close`), and every connection is closed `connectionLifetime` after it
/// opened, however slowly it sends.
final class MetricsEndpoint: Sendable {
    static let maxConnections = 16
    static let connectionLifetime = TimeAmount.seconds(10)

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The socket file it bound and removes on close, when it listens on a Unix socket.
    private let boundPath: String?

    /// The address it listens on, such as `127.0.0.1:9464` (with the port the kernel chose for port 0).
    let address: String

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, boundPath: String?, address: String) {
        self.group = group
        self.channel = channel
        self.boundPath = boundPath
        self.address = address
    }

    /// Starts listening at `listen`; a Unix socket gets `mode` and `socketGroup`. Nil when `listen` is `.off`.
    static func start(
        _ listen: MetricsListen, mode: mode_t, socketGroup: String?, loop: SchedulerLoop, logger: Logger
    ) throws(DaemonError) -> MetricsEndpoint? {
        if case .off = listen { return nil }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let open = Atomic(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard open.add(1, ordering: .relaxed).newValue <= maxConnections else {
                    open.subtract(1, ordering: .relaxed)
                    return channel.close()
                }
                let deadline = channel.eventLoop.scheduleTask(in: connectionLifetime) { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in
                    deadline.cancel()
                    open.subtract(1, ordering: .relaxed)
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsRequestHandler(loop: loop))
                }
            }
        let channel: any Channel
        var boundPath: String?
        do throws(DaemonError) {
            switch listen {
            case .off:
                preconditionFailure("handled above")
            case .unix(let path):
                try SocketPath.prepare(path)
                do {
                    channel = try bootstrap.bind(unixDomainSocketPath: path).wait()
                } catch {
                    throw DaemonError(.socketSetupFailed, "cannot serve the metrics on \(path): \(error)")
                }
                boundPath = path
                do throws(DaemonError) {
                    try SocketPath.applyPermissions(path, mode: mode, group: socketGroup)
                } catch {
                    try? channel.close().wait()
                    unlink(path)
                    throw error
                }
            case .loopback(let host, let port):
                do {
                    // A numeric address: no name lookup between the check and the bind.
                    channel = try bootstrap.bind(to: try SocketAddress(ipAddress: host, port: port)).wait()
                } catch {
                    throw DaemonError(.socketSetupFailed, "cannot serve the metrics on \(listen): \(error)")
                }
            }
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        let address: String
        if case .loopback(let host, _) = listen, let port = channel.localAddress?.port {
            address = MetricsListen.loopback(host: host, port: port).description
        } else {
            address = listen.description
        }
        logger.info("serving metrics", metadata: ["metrics.listen": "\(address)"])
        return MetricsEndpoint(group: group, channel: channel, boundPath: boundPath, address: address)
    }

    /// Stops listening, closes the scrapes in progress, and removes the socket file it bound.
    func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
        if let boundPath { unlink(boundPath) }
    }
}
