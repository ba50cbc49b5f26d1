import Glibc
import Logging
import NIOCore
import NIOPosix

/// The daemon's listening socket and the event loop its connections run on.
///
/// Every connection gets the same pipeline: `LineFrameDecoder` (bytes to lines), `MessageEncoder`
/// (replies and events to JSON lines) and `ConnectionHandler` (lines to the scheduler loop). All
/// their writes go through the loop's one `OutboundQueue`. Remote
/// half-closure is allowed, so a client that ends its input still reads its replies.
final class SocketListener: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let yield: EventLoopYield
    private let channel: any Channel
    /// The socket file this listener bound and removes on close; nil when systemd passed the socket in.
    private let boundPath: String?

    /// Whether the socket came from systemd's socket activation.
    var isActivated: Bool { boundPath == nil }

    private init(group: MultiThreadedEventLoopGroup, yield: EventLoopYield, channel: any Channel, boundPath: String?) {
        self.group = group
        self.yield = yield
        self.channel = channel
        self.boundPath = boundPath
    }

    /// Listens on the socket systemd passed (`descriptor`), or binds `path`, which the caller has
    /// prepared, and gives it `mode` and `socketGroup`. On failure nothing it started is left running.
    static func start(
        adopting descriptor: Int32?, path: String, mode: mode_t, socketGroup: String?,
        loop: SchedulerLoop, lineLimit: LineLimit, logger: Logger
    ) throws(DaemonError) -> SocketListener {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let yield: EventLoopYield
        do {
            yield = try EventLoopYield.start(on: group.next())
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        let outbound = OutboundQueue(eventLoop: yield.eventLoop) { yield.next($0) }
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let quota = lineLimit.connections
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptPause(logger: logger, what: "client connections", openCount: { quota.count }))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pending = lineLimit.pendingBytes.load(ordering: .relaxed)
                    let maxLineBytes = lineLimit.bytes.load(ordering: .relaxed)
                    try channel.syncOptions?.setOption(
                        ChannelOptions.writeBufferWaterMark, value: .init(low: pending / 2, high: pending))
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLineBytes)))
                    try pipeline.addHandler(MessageEncoder(logger: logger, maxPendingEventBytes: pending))
                    try pipeline.addHandler(
                        ConnectionHandler(
                            loop: loop, outbound: outbound, yield: yield, quota: lineLimit.connections,
                            maxLineBytes: maxLineBytes, logger: logger))
                }
            }
        let channel: any Channel
        do {
            if let descriptor {
                channel = try bootstrap.withBoundSocket(descriptor).wait()
            } else {
                channel = try bootstrap.bind(unixDomainSocketPath: path).wait()
            }
        } catch {
            yield.close()
            try? group.syncShutdownGracefully()
            throw DaemonError(.socketSetupFailed, "cannot listen on \(path): \(error)")
        }
        let listener = SocketListener(group: group, yield: yield, channel: channel, boundPath: descriptor == nil ? path : nil)
        if descriptor == nil {
            do {
                try SocketPath.applyPermissions(path, mode: mode, group: socketGroup)
            } catch {
                listener.close()
                throw error
            }
        }
        return listener
    }

    /// Stops accepting, closes every connection (pending writes are flushed first), shuts the event
    /// loop down and removes the socket file it bound.
    func close() {
        try? channel.close().wait()
        yield.close()
        try? group.syncShutdownGracefully()
        if let boundPath { unlink(boundPath) }
    }
}
