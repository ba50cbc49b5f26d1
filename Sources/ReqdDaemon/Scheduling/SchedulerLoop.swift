import Dispatch
import Glibc
import Logging
import ReqdCore
import ReqdProtocol

/// Owns the scheduler on one serial queue and drives every job with one timer (`WakeupTimer`).
///
/// Socket handlers, store commits and HTTP completions hand their events to an `Inbox`; one turn on
/// the queue handles at most `turnBudget` of them, deadlines first, then an `EffectRunner` carries
/// out the effects and the `WakeupPlan` says when the `WakeupTimer` must fire next (the earliest of
/// the next deadline, the watchdog ping and a held-back `SystemdStatus` update). With nothing waiting, and no watchdog, the
/// timer stays unarmed: an idle daemon does not wake up. Clock steps and network changes come from
/// their monitors as turns of their own.
public final class SchedulerLoop: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only on `queue` (asserted with
    // dispatchPrecondition), except the timer and the two monitors, which are set once in `init`
    // before the loop is shared and only read afterwards. `inbox` guards its own state.

    /// What a turn handles.
    enum Item: Sendable {
        case open(ConnectionID, Peer, any MessageSink)
        case event(SchedulerEvent)
        /// One finished store transaction's token: a commit that releases many acknowledgements
        /// takes as many items, so the turn budget bounds them too.
        case committed(CommitToken, failure: String?)
        /// A later turn for the lists in progress.
        case continueLists
        /// The timer fired.
        case wakeup
        /// Timer entries a turn left due (a burst larger than a turn's share): the next share.
        case timersLeft
        /// The wall clock was stepped.
        case clockStepped
    }

    /// Items a turn handles at most, when nothing in the loop asks for more.
    public static let defaultTurnBudget = 32

    /// The scheduler's queue.
    public let queue: DispatchQueue
    /// Items one turn handles at most: requests, commits, HTTP answers. The rest wait for later
    /// turns, so a due deadline (the timer's turn, or the check at the start of every turn) never
    /// waits behind more than one budget of other work.
    public let turnBudget: Int
    private let inbox: Inbox<Item>
    private var scheduler: Scheduler
    private let runner: EffectRunner
    private var plan = WakeupPlan()
    private var status = SystemdStatus()
    private var timer: WakeupTimer?
    private var clockMonitor: ClockChangeMonitor?
    private var localZoneMonitor: LocalZoneMonitor?
    /// The system's time zones, for schedules, here and in the restore's reading thread.
    let zones: ZoneCache
    private var networkMonitor: NetworkChangeMonitor?
    private let logger: Logger
    private let notifier: SystemdNotifier
    /// The daemon's counters and histograms; the loop records timer lateness.
    public let metrics: DaemonMetrics
    private var wakeups = 0
    private var stopped = false
    private var largestTurnItems = 0
    /// A `.continueLists` is in the inbox or in the turn in progress.
    private var listsPosted = false
    /// Whether a `.timersLeft` waits in the inbox.
    private var timersLeftPosted = false

    /// The most items one turn has handled so far, for tests: never more than `turnBudget`, except
    /// for what a turn's own calls out hand back to it (`Inbox.Arrival.reentrant`).
    public var largestTurn: Int {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync { largestTurnItems }
    }

    /// Timer wake-ups so far, for tests and benchmarks.
    public var wakeupCount: Int {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync { wakeups }
    }

    /// Creates the loop around a fresh scheduler, with its timer and its clock and network monitors.
    public init(
        configuration: SchedulerConfiguration, seed: UInt64, logger: Logger, notifier: SystemdNotifier,
        metrics: DaemonMetrics = DaemonMetrics(), turnBudget: Int = SchedulerLoop.defaultTurnBudget,
        earlyWakeNanos: Int64 = Configuration().earlyWakeNanos
    ) {
        let zones = ZoneCache()
        self.zones = zones
        precondition(turnBudget > 0, "a turn must be able to handle something")
        let queue = DispatchQueue(label: "reqd.scheduler", qos: .userInteractive)
        self.queue = queue
        self.turnBudget = turnBudget
        inbox = Inbox(queue: queue)
        scheduler = Scheduler(configuration: configuration, seed: seed, now: SystemClock.now())
        scheduler.zones = zones.provider
        runner = EffectRunner(queue: queue, logger: logger, metrics: metrics)
        self.metrics = metrics
        self.logger = logger
        self.notifier = notifier
        // Weak: the timer and the monitors live as long as the loop; they must not keep it alive.
        guard let timer = WakeupTimer(queue: queue, earlyNanos: earlyWakeNanos, onFire: { [weak self] in self?.turnOnQueue([.wakeup]) }) else {
            // Without its timer no deadline would ever fire; at start, with descriptors to spare, this does not happen.
            fatalError("reqd: cannot create the scheduler's timer (timerfd_create: \(String(cString: strerror(errno))))")
        }
        self.timer = timer
        clockMonitor = ClockChangeMonitor(queue: queue) { [weak self] in self?.turnOnQueue([.clockStepped]) }
        networkMonitor = NetworkChangeMonitor(queue: queue) { [weak self] in self?.turnOnQueue([.event(.networkChanged)]) }
        localZoneMonitor = LocalZoneMonitor(queue: queue) { [weak self] in
            guard let self, reloadLocalZone() else { return }
            turnOnQueue([.event(.localZoneChanged)])
        }
        if networkMonitor == nil {
            logger.warning("cannot watch network changes (netlink: \(String(cString: strerror(errno)))); unreachable targets are probed on a timer only")
        }
    }

    deinit {
        // Only when `stop()` was never called: let the sources go without waiting.
        timer?.cancelLater()
        clockMonitor?.cancelLater()
        networkMonitor?.cancelLater()
        localZoneMonitor?.cancelLater()
    }

    /// Connects the store whose commits gate durable acknowledgements; before start-up only.
    public func attach(store: JobStore) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        // The store's answers take the path its notices take (`performSoon`), so that an answer
        // that registers a waiter is handled before the notice of that job's end.
        queue.sync { runner.attach(store: store, answers: { [weak self] in self?.performSoon($0) }) }
    }

    /// Connects the executor that carries out `send` and `abort`; before start-up only.
    public func attach(executor: HTTPExecutor) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync { runner.attach(executor: executor) }
    }

    /// Starts pinging the systemd watchdog from this queue at half the interval.
    public func enableWatchdog(intervalNanos: Int64) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync {
            let now = SystemClock.now()
            plan.enableWatchdog(intervalNanos: intervalNanos, at: now.instant)
            timer?.apply(plan.nextArming(), now: now)
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
    /// waits for another thread, so this cannot deadlock. Called back from inside a turn (see
    /// `Inbox.Arrival.reentrant`), the events join that turn instead.
    ///
    /// HTTP answers do not come this way: the client's one event loop is already the busiest
    /// thread when many requests are out, and handling their turns there too was slower.
    public func handleNow(_ events: [SchedulerEvent]) { runNow(events.map(Item.event)) }

    /// Reports finished store transactions and handles them at once on the calling thread, like
    /// `handleNow(_:)`: the acknowledgements a commit releases need no hop to the scheduler's queue.
    public func committedNow(_ tokens: [CommitToken], failure: String?) {
        runNow(tokens.map { .committed($0, failure: failure) })
    }

    /// Registers a new connection and its sink; safe from any thread.
    public func open(_ connection: ConnectionID, peer: Peer, sink: any MessageSink) {
        enqueue(.open(connection, peer, sink))
    }

    /// Reports finished store transactions; safe from any thread.
    public func committed(_ tokens: [CommitToken], failure: String?) {
        for token in tokens { enqueue(.committed(token, failure: failure)) }
    }

    /// Runs an event synchronously on the queue (start-up, reload, shutdown).
    public func perform(_ event: SchedulerEvent) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync { turn([.event(event)]) }
    }

    /// Runs an event on the queue without waiting for it: at start-up, one chunk of jobs is
    /// restored there while this thread reads the next. A later `perform` runs after it.
    public func performSoon(_ event: SchedulerEvent) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.async { self.turnOnQueue([.event(event)]) }
    }

    /// The metrics in the Prometheus text format, with the gauges set from the scheduler's counts now.
    public func exposition() -> String {
        metrics.exposition(inspect { $0.gauges })
    }

    /// Reads scheduler state on its queue.
    public func inspect<T: Sendable>(_ body: @Sendable (Scheduler) -> T) -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync { body(scheduler) }
    }

    /// Stops the loop for good: what is already in the inbox is handled (the connections a shutdown
    /// closed), then the timer and the monitors are cancelled, with the monitors' descriptors closed
    /// before this returns, and the loop lets go of its sinks, store and executor. Events that arrive
    /// later are dropped.
    public func stop() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let first = queue.sync { () -> Bool in
            guard !stopped else { return false }
            while true {
                let (items, more) = inbox.take(max: turnBudget)
                turn(items)
                if !more { break }
            }
            stopped = true
            timer?.disarm()
            runner.detachAll()
            return true
        }
        guard first else { return }
        timer?.cancel()
        clockMonitor?.cancel()
        networkMonitor?.cancel()
        localZoneMonitor?.cancel()
    }

    private func enqueue(_ item: Item) {
        if inbox.post(item) { scheduleTurn() }
    }

    /// A turn for what waits in the inbox, behind whatever the queue already holds (the timer's
    /// turn among it); it schedules the next one when more than a budget waits.
    private func scheduleTurn() {
        queue.async {
            let (items, more) = self.inbox.take(max: self.turnBudget)
            self.turn(items)
            if more { self.scheduleTurn() }
        }
    }

    /// Runs turns now: on the caller's thread from outside, or within the turn in progress.
    ///
    /// From outside, what already waited in the inbox when this was called goes first (a
    /// connection's `.open` before its first request), then `items`, a budget per turn; usually
    /// both fit in one. What is posted meanwhile is left to the inbox's own turns, so a caller on
    /// the event loop is never kept here by a steady stream of posts. Each turn is its own
    /// `queue.sync`, so a timer's turn queued meanwhile runs between two of them.
    private func runNow(_ items: [Item]) {
        switch inbox.arrival() {
        case .outside:
            var start = items.startIndex
            var inboxLeft = inbox.count
            var waiting = inboxLeft > 0
            while waiting || start < items.endIndex {
                queue.sync {
                    var batch: [Item] = []
                    if waiting {
                        let more: Bool
                        (batch, more) = inbox.take(max: min(turnBudget, inboxLeft))
                        inboxLeft -= batch.count
                        waiting = more && inboxLeft > 0
                        // Posted after this call began: a turn of the inbox's own takes them.
                        if more && !waiting { scheduleTurn() }
                    }
                    if !waiting {
                        // The inbox's share is taken: the rest of this turn's budget goes to `items`.
                        let room = turnBudget - batch.count
                        let end = items.index(start, offsetBy: room, limitedBy: items.endIndex) ?? items.endIndex
                        batch += items[start..<end]
                        start = end
                    }
                    if !batch.isEmpty { turn(batch) }
                }
            }
        case .reentrant:
            inbox.keep(items)
        }
    }

    /// A turn started by the timer or a monitor, already on the queue.
    private func turnOnQueue(_ items: [Item]) {
        dispatchPrecondition(condition: .onQueue(queue))
        turn(items)
    }

    private func turn(_ items: [Item]) {
        inbox.runTurn(items) { handle($0) }
    }

    private func handle(_ items: [Item]) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else { return }
        largestTurnItems = max(largestTurnItems, items.count)
        let now = SystemClock.now()
        var events: [SchedulerEvent] = []
        events.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .open(let connection, let peer, let sink):
                runner.opened(connection, sink: sink)
                events.append(.connectionOpened(connection, peer))
            case .event(let event):
                if case .connectionClosed(let connection) = event { runner.closed(connection) }
                events.append(event)
            case .committed(let token, let failure):
                events.append(.commitCompleted(token, failure: failure))
            case .continueLists:
                listsPosted = false
                events.append(.continueLists)
            case .timersLeft:
                timersLeftPosted = false
                // The timerfd is not armed while shares are posted: the watchdog is pinged here.
                if plan.fired(at: now.instant).watchdog { notifier.watchdog() }
                events.append(.timerFired)
            case .wakeup:
                wakeups += 1
                let deadline = plan.jobDeadline
                let due = plan.fired(at: now.instant)
                if due.watchdog { notifier.watchdog() }
                if due.jobs, let deadline {
                    metrics.timerFired(lateNanoseconds: now.instant.nanoseconds(since: deadline))
                    events.append(.timerFired)
                }
            case .clockStepped:
                logger.info("wall clock was set; re-arming the timer and planning schedules again")
                plan.clockStepped()
                events.append(.clockStepped)
                // A change of zone may come with the clock being set, or without any inotify event.
                if reloadLocalZone() { events.append(.localZoneChanged) }
            }
        }
        var effects: [SchedulerEffect] = []
        scheduler.handle(turn: events, at: now, into: &effects)
        for event in runner.run(effects, plan: &plan) {
            enqueue(.event(event))
        }
        if scheduler.hasListsInProgress, !listsPosted {
            listsPosted = true
            enqueue(.continueLists)
        }
        publishStatus(at: now)
        if let deadline = plan.jobDeadline, deadline <= now.instant {
            // Entries are due already (a burst larger than a turn's share): their turn comes next,
            // behind what the queue holds, with no round trip through the timerfd.
            if !timersLeftPosted {
                timersLeftPosted = true
                enqueue(.timersLeft)
            }
        } else {
            timer?.apply(plan.nextArming(), now: now)
        }
    }

    /// Reads the local zone again; true, and logged, when it changed.
    private func reloadLocalZone() -> Bool {
        guard zones.reloadLocal() else { return false }
        logger.info("the local time zone changed; planning the schedules that follow it again", metadata: ["zone": "\(zones.local.name)"])
        return true
    }

    /// Offers `STATUS=` the current counts; a change held back sets the plan's status deadline.
    private func publishStatus(at now: ClockReading) {
        guard notifier.isEnabled else { return }
        let text = SystemdStatus.text(
            activeJobs: scheduler.activeJobCount, connections: scheduler.connectionCount,
            heldJobs: scheduler.heldJobCount)
        if let line = status.offer(text, at: now.instant) { notifier.status(line) }
        plan.statusDeadline = status.deadline
    }
}
