import Glibc
import Logging
import NIOCore

/// Pauses accepting for a second when accepting fails (out of descriptors, typically), instead of
/// retrying at once, and says so at most once a minute.
///
/// NIO's `AcceptBackoffHandler` cannot do this here: when the first `accept` of a read fails, the
/// listening socket keeps its pending read and stays registered, and a level-triggered epoll
/// reports it readable again at once, so the loop spun a core at 100%. Turning `autoRead` off
/// drops that registration; it comes back on a second later.
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let logger: Logger
    /// What accepts: "client connections", "the target gate".
    private let what: String
    /// The client connections open, for the log; nil where they are not counted.
    private let openCount: (@Sendable () -> Int)?
    private let pause: TimeAmount
    /// Whether accepting failed since the last accept that worked.
    private var paused = false
    /// When the last warning went out; another waits a minute.
    private var warnedAt: NIODeadline?
    /// Whether this run of failures was warned of, so its end is told too.
    private var warned = false
    private var resume: Scheduled<Void>?

    init(logger: Logger, what: String, openCount: (@Sendable () -> Int)? = nil, pause: TimeAmount = .seconds(1)) {
        self.logger = logger
        self.what = what
        self.openCount = openCount
        self.pause = pause
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        let now = NIODeadline.now()
        if !paused, warnedAt.map({ now - $0 >= .seconds(60) }) ?? true {
            warnedAt = now
            warned = true
            let why = io.errnoCode == EMFILE || io.errnoCode == ENFILE ? "out of file descriptors" : "accept failed"
            var metadata: Logger.Metadata = [
                "rlimit.nofile": "\(DescriptorBudget.openFileLimit)", "error": "\(String(cString: strerror(io.errnoCode)))",
            ]
            if let openCount { metadata["connections.open"] = "\(openCount())" }
            logger.warning(
                "\(why): accepting \(what) pauses 1 s at a time until some close; connected clients keep their service. Raise LimitNOFILE= or lower socket.max_connections",
                metadata: metadata)
        }
        paused = true
        guard resume == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [weak self] in
            self?.resume = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if paused {
            paused = false
            if warned { logger.info("accepting \(what) again", metadata: openCount.map { ["connections.open": "\($0())"] }) }
            warned = false
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }
}
