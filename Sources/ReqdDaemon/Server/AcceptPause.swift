import Glibc
import Logging
import NIOCore

/// Pauses accepting for a second when accepting fails (out of descriptors, typically), instead of
/// retrying at once, and says so once per run of failures, at most once a minute: a run that
/// begins within a minute of the last warning is counted, and the next warning says how many
/// went unwarned (`accept.unwarned_runs`), so a limit hit over and over does not flood the log.
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
    private let warnEvery: TimeAmount
    /// Runs of failures since the last warning that were not warned of.
    private var unwarnedRuns = 0
    /// Whether accepting failed since the last accept that worked.
    private var paused = false
    /// When the last warning went out; another waits a minute.
    private var warnedAt: NIODeadline?
    /// Whether this run of failures was warned of, so its end is told too.
    private var warned = false
    private var resume: Scheduled<Void>?

    init(
        logger: Logger, what: String, openCount: (@Sendable () -> Int)? = nil, pause: TimeAmount = .seconds(1),
        warnEvery: TimeAmount = .seconds(60)
    ) {
        self.logger = logger
        self.what = what
        self.openCount = openCount
        self.pause = pause
        self.warnEvery = warnEvery
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        let now = NIODeadline.now()
        if !paused, warnedAt.map({ now - $0 < warnEvery }) ?? false {
            unwarnedRuns += 1
        } else if !paused {
            warnedAt = now
            warned = true
            let why = io.errnoCode == EMFILE || io.errnoCode == ENFILE ? "out of file descriptors" : "accept failed"
            var metadata: Logger.Metadata = [
                "rlimit.nofile": "\(DescriptorBudget.openFileLimit)", "error": "\(String(cString: strerror(io.errnoCode)))",
            ]
            if let openCount { metadata["connections.open"] = "\(openCount())" }
            if unwarnedRuns > 0 { metadata["accept.unwarned_runs"] = "\(unwarnedRuns)" }
            unwarnedRuns = 0
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
