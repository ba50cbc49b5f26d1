import Dispatch
import Glibc
import Logging
import ReqdCore
import ReqdProtocol
import Synchronization

/// Owns the scheduler on one serial queue and drives every job with one `DispatchSourceTimer`.
///
/// Socket handlers and store completions hand their events to an inbox; one block on the queue
/// drains everything that has arrived (a "turn"), so registrations that arrive together share one
/// store batch. The timer is armed in wall-clock time at the earliest deadline (derived from the
/// boot-time deadline, so it fires on time after a suspend) and re-armed when the clock is stepped.
/// With nothing waiting, and no watchdog, it stays unarmed: an idle daemon does not wake up.
public final class SchedulerLoop: @unchecked Sendable {
    // @unchecked Sendable: every stored var except `inbox` is touched only on `queue`
    // (asserted with dispatchPrecondition); `inbox` is guarded by its Mutex.
    enum Item: Sendable {
        case open(ConnectionID, Peer, any MessageSink)
        case event(SchedulerEvent)
        case committed([CommitToken], failure: String?)
    }

    /// The scheduler's queue.
    public let queue = DispatchQueue(label: "reqd.scheduler", qos: .userInteractive)
    private var scheduler: Scheduler
    private let timer: DispatchSourceTimer
    private let inbox = Mutex<(items: [Item], scheduled: Bool)>(([], false))
    private var sinks: [ConnectionID: any MessageSink] = [:]
    private var store: JobStore?
    private var executor: HTTPExecutor?
    private let logger: Logger
    private let notifier: SystemdNotifier
    private var clockMonitor: ClockChangeMonitor?
    private var networkMonitor: NetworkChangeMonitor?

    private var jobDeadline: Instant?
    private var armedFor: Instant?
    private var watchdogInterval: Int64?
    private var nextWatchdog: Instant?
    private var publishedStatus = ""
    private var statusPublishedAt = Instant(nanoseconds: .min / 2)
    private var statusDeadline: Instant?
    private static let statusInterval: Int64 = 1_000_000_000

    private var wakeups = 0
    /// Set on `queue`, so `handleNow` can tell it is already inside a turn.
    private static let turnKey = DispatchSpecificKey<Bool>()

    /// Timer wake-ups so far, for tests and benchmarks.
    public var wakeupCount: Int { queue.sync { wakeups } }

    /// Creates the loop around a fresh scheduler.
    public init(configuration: SchedulerConfiguration, seed: UInt64, logger: Logger, notifier: SystemdNotifier) {
        scheduler = Scheduler(configuration: configuration, seed: seed, now: SystemClock.now())
        self.logger = logger
        self.notifier = notifier
        queue.setSpecific(key: Self.turnKey, value: true)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in self.timerFired() }
        timer.schedule(wallDeadline: .distantFuture)
        timer.activate()
        queue.sync {
            clockMonitor = ClockChangeMonitor(queue: queue) { [unowned self] in self.clockWasSet() }
            networkMonitor = NetworkChangeMonitor(queue: queue) { [unowned self] in self.networkChanged() }
            if networkMonitor == nil {
                logger.warning("cannot watch network changes (netlink: \(String(cString: strerror(errno)))); unreachable targets are probed on a timer only")
            }
        }
    }

    /// Connects the store whose commits gate durable acknowledgements; before start-up only.
    public func attach(store: JobStore) {
        queue.sync { self.store = store }
    }

    /// Connects the executor that carries out `send` and `abort`; before start-up only.
    public func attach(executor: HTTPExecutor) {
        queue.sync { self.executor = executor }
    }

    /// Starts pinging the systemd watchdog from this queue at half the interval.
    public func enableWatchdog(intervalNanos: Int64) {
        queue.sync {
            watchdogInterval = intervalNanos
            nextWatchdog = SystemClock.now().instant.advanced(by: intervalNanos / 2)
            rearm()
        }
    }

    /// Hands an event to the scheduler; safe from any thread.
    public func submit(_ event: SchedulerEvent) { enqueue(.event(event)) }

    /// Handles events in one turn, at once, on the calling thread, after everything already in
    /// the inbox.
    ///
    /// `sync` on an uncontended serial queue runs the block on the caller's thread, so the
    /// requests of one socket read are handled and their replies written from that same
    /// event-loop thread, in one write and with no hop. Nothing on the scheduler's queue ever
    /// waits for another thread, so this cannot deadlock; called from the queue itself (a callback
    /// run inside a turn), it enqueues.
    ///
    /// HTTP answers do not come this way: the client's one event loop is already the busiest
    /// thread when many requests are out, and handling their turns there too was slower.
    public func handleNow(_ events: [SchedulerEvent]) { runNow(events.map(Item.event)) }

    /// Reports finished store transactions and handles them at once on the calling thread, like
    /// `handleNow(_:)`: the acknowledgements a commit releases need no hop to the scheduler's queue.
    public func committedNow(_ tokens: [CommitToken], failure: String?) {
        runNow([.committed(tokens, failure: failure)])
    }

    private func runNow(_ items: [Item]) {
        guard DispatchQueue.getSpecific(key: Self.turnKey) == nil else { return items.forEach(enqueue) }
        queue.sync { self.handle(self.takeInbox() + items) }
    }

    /// Registers a new connection and its sink; safe from any thread.
    public func open(_ connection: ConnectionID, peer: Peer, sink: any MessageSink) {
        enqueue(.open(connection, peer, sink))
    }

    /// Reports finished store transactions; safe from any thread.
    public func committed(_ tokens: [CommitToken], failure: String?) {
        enqueue(.committed(tokens, failure: failure))
    }

    /// Runs an event synchronously on the queue (start-up, reload, shutdown).
    public func perform(_ event: SchedulerEvent) {
        queue.sync { self.handle([.event(event)]) }
    }

    /// Reads scheduler state on its queue.
    public func inspect<T: Sendable>(_ body: @Sendable (Scheduler) -> T) -> T {
        queue.sync { body(scheduler) }
    }

    /// Stops the timer and the clock monitor.
    public func stop() {
        queue.sync {
            timer.cancel()
            clockMonitor?.cancel()
            clockMonitor = nil
            networkMonitor?.cancel()
            networkMonitor = nil
        }
    }

    private func enqueue(_ item: Item) {
        let schedule = inbox.withLock { state -> Bool in
            state.items.append(item)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule {
            queue.async { self.drain() }
        }
    }

    private func drain() {
        handle(takeInbox())
    }

    private func takeInbox() -> [Item] {
        inbox.withLock { state -> [Item] in
            defer {
                state.items = []
                state.scheduled = false
            }
            return state.items
        }
    }

    private func handle(_ items: [Item]) {
        dispatchPrecondition(condition: .onQueue(queue))
        let now = SystemClock.now()
        var effects: [SchedulerEffect] = []
        for item in items {
            switch item {
            case .open(let connection, let peer, let sink):
                sinks[connection] = sink
                scheduler.handle(.connectionOpened(connection, peer), at: now, into: &effects)
            case .event(let event):
                if case .connectionClosed(let connection) = event { sinks[connection] = nil }
                scheduler.handle(event, at: now, into: &effects)
            case .committed(let tokens, let failure):
                for token in tokens {
                    scheduler.handle(.commitCompleted(token, failure: failure), at: now, into: &effects)
                }
            }
        }
        apply(effects, at: now)
    }

    private func timerFired() {
        dispatchPrecondition(condition: .onQueue(queue))
        wakeups += 1
        armedFor = nil
        let now = SystemClock.now()
        if let due = nextWatchdog, due <= now.instant, let interval = watchdogInterval {
            notifier.watchdog()
            nextWatchdog = now.instant.advanced(by: interval / 2)
        }
        var effects: [SchedulerEffect] = []
        if let deadline = jobDeadline, deadline <= now.instant {
            scheduler.handle(.timerFired, at: now, into: &effects)
        }
        apply(effects, at: now)
    }

    private func clockWasSet() {
        dispatchPrecondition(condition: .onQueue(queue))
        logger.info("wall clock was set; re-arming the timer")
        armedFor = nil
        rearm()
    }

    private func networkChanged() {
        dispatchPrecondition(condition: .onQueue(queue))
        handle([.event(.networkChanged)])
    }

    private func apply(_ effects: [SchedulerEffect], at now: ClockReading) {
        var outputs: [ConnectionID: [OutboundMessage]] = [:]
        var batch = StoreBatch()
        for effect in effects {
            switch effect {
            case .arm(let instant):
                jobDeadline = instant
            case .disarm:
                jobDeadline = nil
            case .reply(let connection, let id, let result):
                let response = Response(id: id, outcome: result.mapError(WireErrorMapping.wireError))
                outputs[connection, default: []].append(.response(response))
            case .deliver(let event, let recipients):
                log(event)
                for recipient in recipients {
                    outputs[recipient.connection, default: []].append(.event(EventMessage(watch: recipient.watch, event: event)))
                }
            case .persist(let change):
                batch.changes.append(change)
            case .commitBarrier(let token):
                batch.barriers.append(token)
            case .send(let send):
                // In order with aborts, so an abort in the same turn finds its request.
                if let executor {
                    executor.execute(send)
                } else {
                    submit(.httpFinished(send.job, attempt: send.attempt, .failure("no HTTP executor")))
                }
            case .abort(let job, let attempt):
                logger.debug("request aborted", metadata: ["job.id": "\(job)", "job.attempt": "\(attempt)"])
                executor?.abort(job: job, attempt: attempt)
            case .notice(let message):
                logger.info("\(message)")
            case .debug(let job, let message):
                logger.debug("\(message)", metadata: ["job.id": "\(job)"])
            }
        }
        if !batch.isEmpty {
            if let store {
                store.submit(batch)
            } else {
                committed(batch.barriers, failure: nil)
            }
        }
        for (connection, messages) in outputs {
            sinks[connection]?.send(messages)
        }
        publishStatus(at: now)
        rearm(at: now)
    }

    private func log(_ event: JobEvent) {
        let level: Logger.Level
        switch event.type {
        case .tick: level = .trace
        case .polled, .progress, .retrying, .held, .member: level = .debug
        default: level = .info
        }
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = ["job.id": "\(event.job)", "job.kind": "\(event.kind.rawValue)", "job.owner": "\(event.owner)"]
        if let scope = event.scope { metadata["scope"] = "\(scope)" }
        if let key = event.key { metadata["job.key"] = "\(key)" }
        switch event.type {
        case .registered:
            let remaining = event.remainingMs.map { " (\(DurationText.format(nanoseconds: $0 * 1_000_000)))" } ?? ""
            logger.info("\(event.kind.rawValue) registered\(remaining)", metadata: metadata)
        case .tick:
            logger.trace("tick", metadata: metadata)
        case .expired:
            if let late = event.lateByMs { metadata["job.late_by_ms"] = "\(late)" }
            if let spawned = event.spawned { metadata["job.spawned"] = "\(spawned)" }
            logger.info("\(event.kind.rawValue) expired", metadata: metadata)
        case .cancelled:
            if let replacement = event.replacedBy { metadata["job.replaced_by"] = "\(replacement)" }
            logger.info("\(event.kind.rawValue) cancelled: \(event.reason?.rawValue ?? "requested")", metadata: metadata)
        case .polled, .progress:
            if let polls = event.polls { metadata["job.polls"] = "\(polls)" }
            if let status = event.status { metadata["http.status"] = "\(status)" }
            if let progress = event.progress { metadata["job.progress"] = "\(progress)" }
            if let error = event.error { metadata["job.error"] = "\(error)" }
            logger.debug("\(event.type.rawValue)", metadata: metadata)
        case .member:
            if let member = event.member { metadata["group.member"] = "\(member)" }
            if let state = event.memberState { metadata["group.member_state"] = "\(state.rawValue)" }
            if let status = event.status { metadata["http.status"] = "\(status)" }
            if let error = event.error { metadata["job.error"] = "\(error)" }
            logger.debug("member ended, \(event.done ?? 0) of \(event.total ?? 0) done", metadata: metadata)
        case .completed:
            if let spawned = event.spawned { metadata["job.spawned"] = "\(spawned)" }
            metadata["group.failures"] = "\(event.failures ?? 0)"
            logger.info(
                "group completed: \(event.state?.rawValue ?? "?"), \(event.failures ?? 0) of \(event.total ?? 0) did not succeed",
                metadata: metadata)
        case .retrying:
            if let attempt = event.attempt { metadata["job.attempt"] = "\(attempt)" }
            if let status = event.status { metadata["http.status"] = "\(status)" }
            if let error = event.error { metadata["job.error"] = "\(error)" }
            logger.debug("attempt failed, retrying", metadata: metadata)
        case .held:
            if let error = event.error { metadata["job.error"] = "\(error)" }
            logger.debug("target unreachable, held", metadata: metadata)
        case .succeeded, .failed, .timedOut, .dead:
            if let polls = event.polls { metadata["job.polls"] = "\(polls)" }
            if let attempt = event.attempt { metadata["job.attempt"] = "\(attempt)" }
            if let status = event.status { metadata["http.status"] = "\(status)" }
            let detail = event.error.map { ": \($0)" } ?? ""
            logger.info("\(event.kind.rawValue) \(event.type.rawValue)\(detail)", metadata: metadata)
        }
    }

    /// Publishes `STATUS=` when the counts changed, at most once a second.
    private func publishStatus(at now: ClockReading) {
        guard notifier.isEnabled else { return }
        var text = "\(scheduler.activeJobCount) active jobs, \(scheduler.connectionCount) connections"
        let held = scheduler.heldJobCount
        if held > 0 { text += ", offline: \(held) request jobs held" }
        guard text != publishedStatus else {
            statusDeadline = nil
            return
        }
        let due = statusPublishedAt.advanced(by: Self.statusInterval)
        if due <= now.instant {
            notifier.status(text)
            publishedStatus = text
            statusPublishedAt = now.instant
            statusDeadline = nil
        } else {
            statusDeadline = due
        }
    }

    /// Arms the one timer at the earliest of the job deadline, the watchdog ping and a pending status update.
    private func rearm(at now: ClockReading = SystemClock.now()) {
        let target = [jobDeadline, nextWatchdog, statusDeadline].compactMap { $0 }.min()
        guard target != armedFor else { return }
        armedFor = target
        guard let target else {
            timer.schedule(wallDeadline: .distantFuture)
            return
        }
        let delay = target.nanoseconds(since: now.instant)
        if delay <= 0 {
            timer.schedule(wallDeadline: .now())
        } else {
            let wall = now.wall.nanosecondsSinceEpoch + delay
            timer.schedule(
                wallDeadline: DispatchWallTime(
                    timespec: timespec(tv_sec: Int(wall / 1_000_000_000), tv_nsec: Int(wall % 1_000_000_000))))
        }
    }
}
