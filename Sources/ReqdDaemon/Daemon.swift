import Dispatch
import Glibc
import Logging
import ReqdCore
import ReqdProtocol
import Synchronization

/// The running daemon: store, scheduler loop, socket server and systemd integration, built in order.
///
/// `reqd`'s `main` parses arguments and calls `Daemon.start`; tests call it the same way with a
/// temporary socket and state directory. A start that fails part-way takes down what it had started,
/// the same way `stop()` does, so a failed start leaks no thread, descriptor or file lock.
public final class Daemon: Sendable {
    /// The socket clients connect to.
    public let socketPath: String
    /// The directory holding the store.
    public let stateDirectory: String
    /// The scheduler loop, for tests and benchmarks.
    public let loop: SchedulerLoop
    /// Where the metrics endpoint listens, such as `127.0.0.1:9464` or `unix:/run/reqd/metrics.sock`;
    /// nil when `metrics.listen` is empty.
    public var metricsAddress: String? { parts.metrics?.address }

    private let parts: Parts
    private let notifier: SystemdNotifier
    private let logger: Logger
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
        let schedulerConfiguration = Self.schedulerConfiguration(configuration)
        let maxConnections = schedulerConfiguration.maxConnections ?? 0
        lineLimit = LineLimit(
            configuration.maxLineBytes, pendingBytes: configuration.maxPendingBytes, limits: configuration.scheduler.userLimits,
            maxConnections: maxConnections)
        stateDirectory = DaemonPaths.stateDirectory(configured: configuration.stateDirectory, environment: environment)
        socketPath = DaemonPaths.socketPath(configured: configuration.socketPath, environment: environment)

        let loop = SchedulerLoop(
            configuration: schedulerConfiguration, seed: seed, logger: logger, notifier: notifier,
            earlyWakeNanos: configuration.earlyWakeNanos)
        self.loop = loop
        var started = Parts(loop: loop)
        do throws(DaemonError) {
            try Self.bringUp(
                configuration, socketPath: socketPath, stateDirectory: stateDirectory, lineLimit: lineLimit,
                logger: logger, notifier: notifier, into: &started)
        } catch {
            started.tearDown()
            throw error
        }
        parts = started

        for note in configuration.notes { logger.warning("\(note)") }
        if let interval = notifier.watchdogIntervalNanos() {
            loop.enableWatchdog(intervalNanos: interval)
        }
        let active = loop.inspect { $0.activeJobCount }
        notifier.ready(status: "\(active) active jobs, 0 connections")
        logger.info(
            "reqd ready",
            metadata: [
                "socket.path": "\(socketPath)", "socket.activated": "\(started.listener?.isActivated == true)",
                "jobs.active": "\(active)", "version": "\(ProtocolInfo.softwareVersion)",
            ])
    }

    /// The scheduler's settings with what only the daemon knows: its pid, whether other daemons
    /// share its store, the connection cap
    /// as it applies it (`socket.max_connections`, or derived from the open-file limit), and the
    /// size of a `list` page, half of what a client may leave unread.
    private static func schedulerConfiguration(_ configuration: Configuration) -> SchedulerConfiguration {
        var scheduler = configuration.scheduler
        scheduler.daemonPID = getpid()
        scheduler.clustered = configuration.storage.backend == .postgres
        scheduler.maxReplyBytes = configuration.maxPendingBytes / 2
        scheduler.maxConnections = DescriptorBudget.maxConnections(
            configured: configuration.maxConnections, openFileLimit: DescriptorBudget.openFileLimit)
        return scheduler
    }

    /// Applies a reloaded configuration: the reloadable settings change, the others are reported and keep
    /// their running value until a restart.
    ///
    /// - Throws: when the settings the daemon would run with do not hold together, as
    ///   `--check-config` finds on the same file: a target's `concurrency` above
    ///   `http.max_connections_per_host`, say. Nothing is applied then.
    public func reload(_ configuration: Configuration, levelControl: LogLevelControl?) throws(DaemonError) {
        let (running, needsRestart) = try state.withLock { state throws(DaemonError) in
            let reload = state.configuration.reloaded(with: configuration)
            try reload.running.validate()
            state.configuration = reload.running
            return reload
        }
        notifier.reloading()
        for note in configuration.notes { logger.warning("\(note)") }
        levelControl?.current = running.logLevel
        levelControl?.rate = running.logRate
        lineLimit.bytes.store(running.maxLineBytes, ordering: .relaxed)
        lineLimit.pendingBytes.store(running.maxPendingBytes, ordering: .relaxed)
        let scheduler = Self.schedulerConfiguration(running)
        lineLimit.connections.update(running.scheduler.userLimits, maxConnections: scheduler.maxConnections ?? 0)
        parts.executor?.setMaxConnectionsPerHost(running.http.maxConnectionsPerHost)
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
        parts.tearDown()
        logger.info("reqd stopped")
    }
}
