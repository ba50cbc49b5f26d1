import Glibc
import Logging
import NIOCore

/// Pauses accepting for a second when accepting fails (out of descriptors, typically), instead of
/// retrying at once, and says so once per episode.
///
/// NIO's `AcceptBackoffHandler` cannot do this here: when the first `accept` of a read fails, the
/// listening socket keeps its pending read and stays registered, and a level-triggered epoll
/// reports it readable again at once, so the loop spun a core at 100%. Turning `autoRead` off
/// drops that registration; it comes back on a second later.
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let logger: Logger
    private let quota: ConnectionQuota
    private let pause: TimeAmount
    /// Connections open when the episode began; it ends once a tenth of them have closed.
    private var episode: Int?
    private var resume: Scheduled<Void>?

    init(logger: Logger, quota: ConnectionQuota, pause: TimeAmount = .seconds(1)) {
        self.logger = logger
        self.quota = quota
        self.pause = pause
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        if episode == nil {
            episode = quota.count
            let why = io.errnoCode == EMFILE || io.errnoCode == ENFILE ? "out of file descriptors" : "accept failed"
            logger.warning(
                "\(why): accepting connections pauses 1 s at a time until some close; connected clients keep their service. Raise LimitNOFILE= or lower socket.max_connections",
                metadata: [
                    "rlimit.nofile": "\(DescriptorBudget.openFileLimit)", "connections.open": "\(quota.count)",
                    "error": "\(String(cString: strerror(io.errnoCode)))",
                ])
        }
        guard resume == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [weak self] in
            self?.resume = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let open = episode, quota.count <= open - max(1, open / 10) {
            episode = nil
            logger.info("accepting connections again", metadata: ["connections.open": "\(quota.count)"])
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }
}
