import ReqdProtocol

/// The heart of reqd: routes every event to the part that owns its data, and keeps the one timer
/// armed at the earliest deadline.
///
/// Events go in with the time they happened; effects come out for the daemon to carry out. It
/// does no I/O and reads no clock, so tests drive it on an injected clock, deterministically and
/// fast. The scheduler composes small machines, each owning its data (docs/ARCHITECTURE.md):
/// `JobTable` (headers, indexes, counts, retention), one table of state machines per job kind
/// (`Countdown`, `Poll`, `Delivery`, `Group`: each event returns a `JobAction`), `Subscriptions`
/// (who hears what), `CommitGate` (what waits for the store), `DedupeIndex` and `NetworkHold`.
/// The scheduler keeps the timer heap, turns actions into `SchedulerEffect`s in one place
/// (`perform(_:for:at:into:)`), and applies what crosses machines: a job's end, a replaced key,
/// a held target.
///
/// ReqdCore speaks the wire's types: replies, events and job views are `ReqdProtocol` values,
/// and a refusal carries its wire `ErrorCode` (`SchedulerError`), so no second list of codes
/// exists to keep in step. What the core never sees gets its code elsewhere: a line that is not a
/// valid request in ReqdProtocol's decoder, a line over the limit in the daemon's `WireErrorMapping`.
public struct Scheduler: Sendable {
    public internal(set) var configuration: SchedulerConfiguration
    let startedAt: ClockReading
    var random: RandomSource

    /// Every job, header and state machine, in its kind's table; the key and scope indexes,
    /// counts and retention.
    var table = JobTable()

    var subscriptions = Subscriptions()
    var commits = CommitGate()
    var dedupe = DedupeIndex()
    /// `list`s that span turns, taking turns by connection.
    var lists = ListTurns()
    /// The creation time of the newest job: the next one made within a millisecond of it is made
    /// a nanosecond later.
    var lastCreatedAt = WallTime(nanosecondsSinceEpoch: .min)
    static let creationNudgeWindowNanos: Int64 = 1_000_000
    /// A `list` slice was walked in the turn in progress: a turn walks at most one.
    var listSliceWalked = false
    /// Ended jobs a turn forgets at most: about a millisecond's work with a million jobs held
    /// (`forgetNanos` each).
    static let forgetsPerTurn = 256
    /// What forgetting one ended job costs at most, with a million held (3.5 µs, measured): a
    /// turn forgets no more than fit before the next deadline.
    static let forgetNanos: Int64 = 3_500
    /// What is left of the turn in progress's share of forgetting.
    var forgetsLeft = forgetsPerTurn
    /// What is left of the turn in progress's share of timer entries (`timerEntriesPerTurn`).
    var timerEntriesLeft = 0
    /// Request jobs held while their targets are unreachable.
    var network = NetworkHold()
    /// Targets whose requests fail now, for `metrics`.
    var targetHealth = TargetHealth()
    /// Slots for overdue HTTP starts, per target.
    var catchup = CatchupPacer()
    /// Requests on the wire by owner, and the jobs waiting for one of their owner's slots.
    var ledger = WireLedger()
    /// Rate and concurrency per target, and the jobs waiting for their target.
    var limiter = TargetLimiter()
    /// The job `startTargetWaiters` is starting from its target's line, which takes its turn there.
    var servingFromLine: (job: JobID, target: String)?
    /// True while the timer starts a job's work: only then is a start more than a second late
    /// overdue work (`CatchupPacer`). A start after a slow commit, or after a wait for one of
    /// the user's request slots, is late for another reason, and takes no catch-up slot.
    var startingOnTimer = false

    /// Where schedules find their time zones; the daemon hands in the system's.
    public var zones = ZoneProvider.utcOnly
    /// One copy of each calendar rule, shared by the schedules that name it.
    var scheduleRules = ScheduleRuleCache()

    /// A restore from the store in progress (`restoreChunk`).
    var restoring: RestoreProgress?

    /// Tables shrinking after a burst, in slices on the timer.
    var shrinking = ShrinkPass()

    var timers = IndexedMinHeap<TimerKey, Instant>()
    /// The instant the daemon's timer is armed for, as the effects left it.
    var armed: Instant?
    var shuttingDown = false

    /// Creates an empty scheduler.
    ///
    /// - Parameters:
    ///   - configuration: limits and defaults.
    ///   - seed: seeds job ids and jitter; the daemon passes entropy, tests a constant.
    ///   - now: the start time, for the summary's uptime.
    public init(configuration: SchedulerConfiguration, seed: UInt64, now: ClockReading) {
        self.configuration = configuration
        self.random = RandomSource(seed: seed)
        self.startedAt = now
    }

    /// Gives a new turn its shares of work.
    private mutating func startTurn() {
        listSliceWalked = false
        forgetsLeft = Self.forgetsPerTurn
        timerEntriesLeft = configuration.timerEntriesPerTurn
    }

    /// Handles the events of one turn, deadlines first.
    ///
    /// A deadline that is already due when the turn starts fires before any of the turn's events,
    /// whatever they are, so its effects come first too: what other clients asked for never makes
    /// a due timer wait behind it. A turn of the timer alone fires `timerEntriesPerTurn` of them.
    ///
    /// It takes an array, not any collection: called from the daemon's module, a generic method
    /// would run unspecialized, looking up the collection's witnesses at run time on every turn.
    public mutating func handle(turn events: [SchedulerEvent], at now: ClockReading, into effects: inout [SchedulerEffect]) {
        startTurn()
        if events.contains(where: { if case .timerFired = $0 { false } else { true } }) {
            // A turn that carries more than the timer fires every due deadline first, however
            // many: no request sees, cancels or replaces a job whose deadline has passed as if it
            // had not. Turns of the timer alone take a share each.
            timerEntriesLeft = .max
        }
        if let next = nextDeadline, next <= now.instant {
            fireDueTimers(at: now, into: &effects)
            if !ledger.freed.isEmpty { startWaitingJobs(at: now, into: &effects) }
            if !limiter.freed.isEmpty { startTargetWaiters(at: now, into: &effects) }
            forgetExpired(at: now, into: &effects)
            updateTimer(into: &effects)
        }
        for event in events {
            handle(event, at: now, into: &effects)
        }
    }

    /// Handles one event as a turn of its own and returns the effects it causes.
    public mutating func handle(_ event: SchedulerEvent, at now: ClockReading) -> [SchedulerEffect] {
        startTurn()
        var effects: [SchedulerEffect] = []
        handle(event, at: now, into: &effects)
        return effects
    }

    /// Handles one event, appending the effects it causes to `effects`.
    public mutating func handle(_ event: SchedulerEvent, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        forgetExpired(at: now, into: &effects)
        switch event {
        case .connectionOpened(let id, let peer):
            subscriptions.open(id, peer: peer)
        case .connectionClosed(let id):
            closeConnection(id, at: now, into: &effects)
        case .request(let connection, let request):
            handleRequest(request, from: connection, at: now, into: &effects)
        case .timerFired:
            fireDueTimers(at: now, into: &effects)
            // The one-shot timer has fired: always say how it should be armed now.
            armed = .distantPast
        case .httpFinished(let id, let attempt, let outcome, let address):
            httpFinished(id, attempt: attempt, outcome, address: address, at: now, into: &effects)
        case .attemptAddressed(let id, let attempt, let address):
            attemptAddressed(id, attempt: attempt, address: address, into: &effects)
        case .commitCompleted(let token, let failure):
            completeCommit(token, failure: failure, at: now, into: &effects)
        case .restore(let records):
            restore(RestoreChunk(records, expecting: records.count, at: now, configuration: configuration, zones: zones), at: now, into: &effects)
            finishRestore(at: now, into: &effects)
        case .restoreChunk(let chunk):
            restore(chunk, at: now, into: &effects)
        case .restoreEnded:
            finishRestore(at: now, into: &effects)
        case .endedElsewhere(let id, let replacedBy):
            finish(id, as: .cancelled, reason: replacedBy == nil ? .requested : .superseded, replacedBy: replacedBy, at: now, into: &effects)
        case .reconfigure(let configuration):
            let targetsChanged = configuration.targets != self.configuration.targets
            let deadRetentionChanged = configuration.deadRetentionNanos != self.configuration.deadRetentionNanos
            self.configuration = configuration
            limitsChanged()
            if targetsChanged { limiter.rulesChanged(configuration.targets) }
            if deadRetentionChanged { replanDeadLetters(at: now) }
        case .clusterAnswered(let query, let answer):
            clusterAnswered(query, answer, at: now, into: &effects)
        case .waitedJobEnded(let record):
            waitedJobEnded(record, at: now, into: &effects)
        case .waitedJobGone(let id):
            waitedJobGone(id, into: &effects)
        case .watchedElsewhere(let id, let daemon):
            watchedElsewhere(id, by: daemon, at: now, into: &effects)
        case .unwatchedElsewhere(let id, let daemon):
            unwatchedElsewhere(id, by: daemon)
        case .eventElsewhere(let event):
            eventElsewhere(event, into: &effects)
        case .takenElsewhere(let id):
            takenElsewhere(id, into: &effects)
        case .continueLists:
            continueLists(at: now, into: &effects)
        case .networkChanged:
            probeRound(at: now, into: &effects)
        case .clockStepped:
            replanSchedules(at: now, into: &effects)
        case .localZoneChanged:
            rezoneLocalSchedules(at: now, into: &effects)
        case .shutdown:
            shuttingDown = true
            persistAllPollAttempts(into: &effects)
        }
        if !ledger.freed.isEmpty { startWaitingJobs(at: now, into: &effects) }
        if !limiter.freed.isEmpty { startTargetWaiters(at: now, into: &effects) }
        forgetExpired(at: now, into: &effects)
        scheduleShrinkIfDue(at: now)
        updateTimer(into: &effects)
    }

    /// The earliest instant the timer should fire, if anything waits for time.
    public var nextDeadline: Instant? { timers.min?.priority }

    /// The number of jobs that have not ended.
    public var activeJobCount: Int { table.liveJobs }

    /// True while a `list` waits for a later turn: the daemon must send `.continueLists`.
    public var hasListsInProgress: Bool { !lists.isEmpty }

    /// The number of open connections.
    public var connectionCount: Int { subscriptions.count }

    /// Held request jobs and probes, for the daemon's status line.
    public var heldJobCount: Int { network.heldJobs }

    /// Emits at most one `.arm` or `.disarm` per event: only when the earliest deadline moved.
    private mutating func updateTimer(into effects: inout [SchedulerEffect]) {
        // A restore in chunks arms the timer once, at its end.
        guard restoring == nil else { return }
        let next = timers.min?.priority
        guard next != armed else { return }
        armed = next
        effects.append(next.map { .arm($0) } ?? .disarm)
    }

    /// Handles the timer entries due, up to what is left of the turn's share: the arming that
    /// follows is in the past when more are due, and the daemon brings the next share at once.
    private mutating func fireDueTimers(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        // Nothing starts before a restore has every row: a job read later may supersede it.
        guard restoring == nil else { return }
        while timerEntriesLeft > 0, let entry = timers.popMin(notAfter: now.instant) {
            timerEntriesLeft -= 1
            switch entry.key {
            case .job(let id):
                jobTimerFired(id, at: now, into: &effects)
            case .dedupe(let id):
                // A burst of submits leaves its fingerprints behind it: once enough of their
                // windows have ended, a shrink pass gives the index's room back.
                if dedupe.forget(id) { shrinking.removed() }
            case .probe:
                probeTimerFired(at: now, into: &effects)
            case .retention:
                break  // The turn itself forgets the next share.
            case .targets:
                targetTimerFired(at: now)
            case .shrink:
                shrinkSlice(at: now, into: &effects)
            }
        }
    }

    /// Forgets the ended jobs whose retention has passed, and the oldest beyond the daemon's and
    /// the owners' limits, looking at `forgetsPerTurn` entries at most in a turn, and fewer when a
    /// deadline is near (`forgetNanos` each). When more are due, the `.retention` timer brings the
    /// next turn 1 ms later: a million jobs whose retention passed together leave over a few
    /// seconds of short turns, not in one turn of a tenth of a second or more.
    private mutating func forgetExpired(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let next = nextDeadline {
            if next > now.instant {
                // A deadline near: forgetting takes what fits before it, an eighth of its share at least.
                let fits = Int(min(next.nanoseconds(since: now.instant) / Self.forgetNanos, Int64(Self.forgetsPerTurn)))
                forgetsLeft = min(forgetsLeft, max(fits, Self.forgetsPerTurn / 8))
            } else if timerEntriesLeft == 0 {
                // A burst of due entries goes on in the next turn: forgetting takes an eighth of its
                // share meanwhile, so the deadlines come first and ended jobs still go.
                forgetsLeft = min(forgetsLeft, Self.forgetsPerTurn / 8)
            }
        }
        if forgetsLeft > 0 {
            let (expired, looked) = table.expired(
                at: now.instant, retention: configuration.retentionNanos, maxRetained: configuration.maxRetainedJobs,
                limit: forgetsLeft)
            forgetsLeft -= looked
            for id in expired {
                forgetRetained(id, at: now, into: &effects)
            }
        }
        if forgetsLeft > 0 { forgetOverOwnerRetention(at: now, into: &effects) }
        if forgetsLeft == 0 { timers.set(.retention, priority: now.instant.advanced(by: ShrinkPass.sliceGapNanos)) }
    }
}
