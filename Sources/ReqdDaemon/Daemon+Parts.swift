import Foundation
import Glibc
import Logging
import ReqdCore
import Synchronization

extension Daemon {
    /// What a start has brought up so far. `stop()` and a start that fails part-way take it down
    /// the same way.
    struct Parts: Sendable {
        let loop: SchedulerLoop
        var store: JobStore?
        var executor: HTTPExecutor?
        var listener: SocketListener?
        var metrics: MetricsEndpoint?
        var lock: StateDirectoryLock?

        /// Takes down whatever is up, each part after those that feed it: the commits under way
        /// first, so that the replies they owe are written before their connections close (a client
        /// told nothing of a job that was stored might submit it again); then the listeners (the
        /// control socket's connections close, and their last events reach the loop), then the loop (its timer and
        /// monitors), the requests still on the wire, the store, flushed and closed, and last the
        /// state directory's lock. The stop counts as clean only if the store was opened.
        func tearDown() {
            store?.flush()
            listener?.close()
            metrics?.close()
            loop.stop()
            executor?.shutdown()
            store?.close()
            lock?.release(clean: store != nil)
        }
    }

    /// The status `reqd` exits with when its lease on a shared store is lost.
    public static let leaseLostExitStatus: Int32 = 75

    /// The start-up steps after the loop: the store and its jobs, the executor, then the socket.
    /// Each adds what it starts to `parts` before the next step can fail.
    static func bringUp(
        _ configuration: Configuration, socketPath: String, stateDirectory: String, lineLimit: LineLimit,
        logger: Logger, notifier: SystemdNotifier, into parts: inout Parts
    ) throws(DaemonError) {
        let loop = parts.loop
        // Checked before the store is opened and its jobs restored (or claimed from a cluster),
        // which a unit's `Restart=` would otherwise repeat for nothing. A second socket would be
        // left listening with no one to accept on it, and its clients would hang.
        let activated = notifier.listenDescriptors()
        guard activated.count <= 1 else {
            throw DaemonError(
                .socketSetupFailed,
                "systemd passed \(activated.count) sockets (LISTEN_FDS), but reqd serves one control socket: give its socket unit one ListenStream=")
        }
        do {
            try SocketPath.makeDirectory(stateDirectory, mode: 0o700)
        } catch {
            throw DaemonError(.stateDirectoryUnusable, "state directory \(stateDirectory): \(error.message)")
        }
        let lock = try StateDirectoryLock.acquire(in: stateDirectory)
        parts.lock = lock
        if !lock.lastStopWasClean {
            logger.info("the last stop was not clean; checking the job store", metadata: ["state.dir": "\(stateDirectory)"])
        }
        let store: JobStore
        let loadStarted = SystemClock.now().instant
        func unusable(_ error: DaemonError) -> DaemonError {
            if configuration.storage.backend == .postgres {
                return DaemonError(
                    [.unsupportedStoreVersion, .invalidSetting].contains(error.code) ? error.code : .storageFailed,
                    "cannot open the PostgreSQL job store: \(error.message)")
            }
            return DaemonError(
                error.code == .storeDamaged ? .storeDamaged : .storageFailed,
                "cannot open the job store in \(stateDirectory): \(error.message). reqd left the file as it was; move it aside to start "
                    + "with an empty store, or put back a copy")
        }
        do throws(DaemonError) {
            let backend: any StoreBackend
            switch configuration.storage.backend {
            case .sqlite:
                backend = try SQLiteStoreBackend(directory: stateDirectory, checkIntegrity: !lock.lastStopWasClean)
            case .postgres:
                guard let address = configuration.storage.postgresAddress else {
                    throw DaemonError.invalidSetting("storage.postgres_url", "must be set when storage.backend is postgres")
                }
                // The state directory's lock says the daemon that ran here before is gone.
                let holderFile = stateDirectory + "/cluster-holder"
                let previous = (try? String(contentsOfFile: holderFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                let postgres = try PostgresStoreBackend(
                    // The password file is read only for a URL that holds no password.
                    address: address, password: address.password == nil ? try configuration.storage.postgresPassword() : nil,
                    cluster: configuration.storage.clusterName,
                    previousHolder: previous, leaseNanos: configuration.storage.leaseNanos,
                    horizonNanos: configuration.storage.horizonNanos, logger: logger)
                try? (postgres.holder + "\n").write(toFile: holderFile, atomically: true, encoding: .utf8)
                backend = postgres
            }
            // Weak, here and for the executor: the loop holds both, so they must not hold it.
            let health = StoreHealthLog(logger: logger)
            // SQLite commits in-process, where waiting saves less than it costs a busy queue.
            let delay = configuration.storage.backend == .postgres ? configuration.storage.commitDelayNanos : 0
            store = JobStore(backend: backend, metrics: loop.metrics, commitDelayNanos: delay) {
                [weak loop] tokens, failure in
                health.committed(failure: failure)
                loop?.committedNow(tokens, failure: failure)
            }
            parts.store = store
        } catch {
            throw unusable(error)
        }
        loop.attach(store: store)
        let executor: HTTPExecutor
        do {
            executor = try HTTPExecutor(
                settings: configuration.http, policy: configuration.scheduler.targetPolicy, logger: logger, metrics: loop.metrics,
                onAbortedAddress: { [weak loop] job, attempt, address in
                    loop?.submit(.attemptAddressed(job, attempt: attempt, address: address))
                },
                mayStart: { [weak store] in store?.leaseHolds() ?? true }
            ) {
                [weak loop] job, attempt, outcome, address in
                loop?.submit(.httpFinished(job, attempt: attempt, outcome, address: address))
            }
        } catch {
            throw DaemonError(.httpSetupFailed, "cannot start the target gate for http.deny on 127.0.0.1: \(error)")
        }
        let policy = configuration.scheduler.targetPolicy
        if policy.isActive {
            logger.info(
                "target policy on: every connection is checked against http.deny and http.allow",
                metadata: ["http.deny": "\(policy.deny.joined(separator: ", "))", "http.allow": "\(policy.allow.joined(separator: ", "))"])
        }
        let proxies = configuration.http.proxies
        if proxies.isActive {
            logger.info(
                "proxies from the environment",
                metadata: [
                    "http.proxy": "\(proxies.http?.description ?? "none")", "https.proxy": "\(proxies.https?.description ?? "none")",
                    "no_proxy": "\(proxies.direct.joined(separator: ","))",
                ])
        }
        parts.executor = executor
        loop.attach(executor: executor)
        // Renewed from now on, through the reads of a long start.
        store.keepLease(
            claimed: { [weak loop] records in
                logger.info("took over jobs another daemon left", metadata: ["store.claimed": "\(records.count)"])
                loop?.performSoon(.restore(records))
            },
            heard: { [weak loop] event in
                if case .endedElsewhere(let job, let replacedBy) = event {
                    logger.debug("a job ended on another daemon", metadata: ["job.id": "\(job)", "job.replaced_by": "\(replacedBy?.rawValue ?? "")"])
                }
                loop?.performSoon(event)
            },
            lost: { error in
                // Other daemons may run this one's jobs from now on: only stopping at once keeps
                // them from running twice. systemd starts the daemon again (Restart=on-failure).
                logger.critical("lease lost; reqd exits so that no job runs on two daemons", metadata: ["store.error": "\(error.message)"])
                notifier.status("lease lost; exiting")
                Glibc.exit(Self.leaseLostExitStatus)
            })
        // This thread reads the rows; other threads make them jobs while the scheduler's queue
        // files the jobs of the chunks before. One clock reading serves every chunk.
        let rows = Atomic<Int>(0)
        let readingStarted = SystemClock.now()
        let schedulerConfiguration = configuration.scheduler
        do {
            try store.load(chunkSize: 8_192) { chunk, total in
                rows.add(chunk.count, ordering: .relaxed)
                loop.performSoon(
                    .restoreChunk(
                        RestoreChunk(chunk, expecting: total, at: readingStarted, configuration: schedulerConfiguration, zones: loop.zones.provider)))
            }
        } catch {
            throw unusable(error)
        }
        let read = SystemClock.now().instant
        loop.perform(.restoreEnded)
        // Watches other daemons kept on these jobs while another daemon held them.
        for watch in (try? store.remoteWatches()) ?? [] { loop.perform(watch) }
        let restored = SystemClock.now().instant
        logger.info(
            "store opened",
            metadata: [
                "store.location": "\(store.location)", "store.restored": "\(rows.load(ordering: .relaxed))",
                "store.read_ms": "\(read.nanoseconds(since: loadStarted) / 1_000_000)",
                "store.restored_ms": "\(restored.nanoseconds(since: loadStarted) / 1_000_000)",
            ])

        if activated.isEmpty {
            let directory = String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)])
            if configuration.socketPath == nil, directory.hasPrefix("/tmp/") {
                try SocketPath.makePrivateDirectory(directory)
            } else if !directory.isEmpty {
                try SocketPath.makeDirectory(directory, mode: 0o755)
            }
            try SocketPath.prepare(socketPath)
        }
        if case .unix(let path) = configuration.metricsListen, path == socketPath {
            throw DaemonError.invalidSetting("metrics.listen", "must not be the control socket's path, \(socketPath)")
        }
        parts.metrics = try MetricsEndpoint.start(
            configuration.metricsListen, mode: mode_t(configuration.socketMode), socketGroup: configuration.socketGroup,
            loop: loop, logger: logger)
        parts.listener = try SocketListener.start(
            adopting: activated.first, path: socketPath, mode: mode_t(configuration.socketMode),
            socketGroup: configuration.socketGroup, loop: loop, lineLimit: lineLimit, logger: logger)
    }
}
