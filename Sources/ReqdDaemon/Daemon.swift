import Dispatch
import Glibc
import Logging
import NIOCore
import NIOPosix
import ReqdCore
import ReqdProtocol
import Synchronization

/// The running daemon: store, scheduler loop, socket server and systemd integration, built in order.
///
/// `reqd`'s `main` parses arguments and calls `Daemon.start`; tests call it the same way with a
/// temporary socket and state directory.
public final class Daemon: Sendable {
    /// The socket clients connect to.
    public let socketPath: String
    /// The directory holding the store.
    public let stateDirectory: String
    /// The scheduler loop, for tests and benchmarks.
    public let loop: SchedulerLoop

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let store: JobStore
    private let executor: HTTPExecutor
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let socketActivated: Bool
    private let state: Mutex<(configuration: Configuration, stopped: Bool)>
    private let lineLimit: LineLimit

    /// Opens the store, restores its jobs, binds (or adopts) the socket, then reports READY=1.
    public static func start(
        configuration: Configuration, environment: [String: String], logger: Logger,
        notifier: SystemdNotifier = SystemdNotifier(), seed: UInt64 = UInt64.random(in: .min ... .max)
    ) throws(DaemonError) -> Daemon {
        try Daemon(configuration: configuration, environment: environment, logger: logger, notifier: notifier, seed: seed)
    }

    private init(
        configuration: Configuration, environment: [String: String], logger: Logger, notifier: SystemdNotifier,
        seed: UInt64
    ) throws(DaemonError) {
        self.logger = logger
        self.notifier = notifier
        state = Mutex((configuration, false))
        lineLimit = LineLimit(configuration.maxLineBytes, pendingBytes: configuration.maxPendingBytes)
        stateDirectory = DaemonPaths.stateDirectory(configured: configuration.stateDirectory, environment: environment)
        socketPath = DaemonPaths.socketPath(configured: configuration.socketPath, environment: environment)

        var schedulerConfiguration = configuration.scheduler
        schedulerConfiguration.daemonPID = getpid()
        let loop = SchedulerLoop(configuration: schedulerConfiguration, seed: seed, logger: logger, notifier: notifier)
        self.loop = loop

        do {
            try SocketPath.makeDirectory(stateDirectory, mode: 0o700)
        } catch {
            throw DaemonError(.stateDirectoryUnusable, "state directory \(stateDirectory): \(error.message)")
        }
        let store: JobStore
        let records: [JobRecord]
        let loadStarted = SystemClock.now().instant
        do {
            store = try JobStore(directory: stateDirectory) { tokens, failure in
                loop.committedNow(tokens, failure: failure)
            }
            records = try store.loadAll()
        } catch {
            throw DaemonError(.storageFailed, "cannot open the job store: \(error.message)")
        }
        self.store = store
        loop.attach(store: store)
        executor = HTTPExecutor(settings: configuration.http) { job, attempt, outcome in
            loop.submit(.httpFinished(job, attempt: attempt, outcome))
        }
        loop.attach(executor: executor)
        let restoreStarted = SystemClock.now().instant
        loop.perform(.restore(records))
        let restored = SystemClock.now().instant
        logger.info(
            "store opened",
            metadata: [
                "store.path": "\(store.path)", "store.restored": "\(records.count)",
                "store.read_ms": "\(restoreStarted.nanoseconds(since: loadStarted) / 1_000_000)",
                "store.restore_ms": "\(restored.nanoseconds(since: restoreStarted) / 1_000_000)",
            ])

        let activated = notifier.listenDescriptors()
        socketActivated = !activated.isEmpty
        if !socketActivated {
            let directory = String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)])
            if configuration.socketPath == nil, directory.hasPrefix("/tmp/") {
                try SocketPath.makePrivateDirectory(directory)
            } else if !directory.isEmpty {
                try SocketPath.makeDirectory(directory, mode: 0o755)
            }
            try SocketPath.prepare(socketPath)
        }
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let lineLimit = lineLimit
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pending = lineLimit.pendingBytes.load(ordering: .relaxed)
                    try channel.syncOptions?.setOption(
                        ChannelOptions.writeBufferWaterMark, value: .init(low: pending / 2, high: pending))
                    try channel.pipeline.syncOperations.addHandler(MessageEncoder(logger: logger))
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(loop: loop, maxLineBytes: lineLimit.bytes.load(ordering: .relaxed), logger: logger))
                }
            }
        do {
            if let descriptor = activated.first {
                serverChannel = try bootstrap.withBoundSocket(descriptor: descriptor).wait()
            } else {
                serverChannel = try bootstrap.bind(unixDomainSocketPath: socketPath).wait()
                try SocketPath.applyPermissions(socketPath, mode: mode_t(configuration.socketMode), group: configuration.socketGroup)
            }
        } catch let error as DaemonError {
            try? group.syncShutdownGracefully()
            executor.shutdown()
            throw error
        } catch {
            try? group.syncShutdownGracefully()
            executor.shutdown()
            throw DaemonError(.socketSetupFailed, "cannot listen on \(socketPath): \(error)")
        }

        if let interval = notifier.watchdogIntervalNanos() {
            loop.enableWatchdog(intervalNanos: interval)
        }
        let active = loop.inspect { $0.activeJobCount }
        notifier.ready(status: "\(active) active jobs, 0 connections")
        logger.info(
            "reqd ready",
            metadata: [
                "socket.path": "\(socketPath)", "socket.activated": "\(socketActivated)", "jobs.active": "\(active)",
                "version": "\(ProtocolInfo.softwareVersion)",
            ])
    }

    /// Applies a reloaded configuration: the reloadable settings change, the others are reported and keep
    /// their running value until a restart.
    public func reload(_ configuration: Configuration, levelControl: LogLevelControl?) {
        notifier.reloading()
        let (running, needsRestart) = state.withLock { state in
            let reload = state.configuration.reloaded(with: configuration)
            state.configuration = reload.running
            return reload
        }
        levelControl?.current = running.logLevel
        lineLimit.bytes.store(running.maxLineBytes, ordering: .relaxed)
        lineLimit.pendingBytes.store(running.maxPendingBytes, ordering: .relaxed)
        var scheduler = running.scheduler
        scheduler.daemonPID = getpid()
        loop.perform(.reconfigure(scheduler))
        if !needsRestart.isEmpty {
            logger.warning("these settings change only on restart: \(needsRestart.joined(separator: ", "))")
        }
        logger.info("configuration reloaded", metadata: ["log.level": "\(running.logLevel)"])
        let active = loop.inspect { $0.activeJobCount }
        notifier.ready(status: "\(active) active jobs (reloaded)")
    }

    /// Stops cleanly: STOPPING=1, no new connections, pending writes flushed, store closed.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        notifier.stopping()
        logger.info("reqd stopping")
        loop.perform(.shutdown)
        try? serverChannel.close().wait()
        try? group.syncShutdownGracefully()
        loop.stop()
        executor.shutdown()
        store.close()
        if !socketActivated { unlink(socketPath) }
        logger.info("reqd stopped")
    }
}

/// The per-connection limits, read by each new connection and changed by reload.
final class LineLimit: Sendable {
    let bytes: Atomic<Int>
    let pendingBytes: Atomic<Int>

    init(_ bytes: Int, pendingBytes: Int) {
        self.bytes = Atomic(bytes)
        self.pendingBytes = Atomic(pendingBytes)
    }
}
