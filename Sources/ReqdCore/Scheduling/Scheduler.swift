import ReqdProtocol

/// The heart of reqd: every job, every deadline, every subscription, as one value.
///
/// Events go in with the time they happened; effects come out for the daemon to carry out. It does
/// no I/O and reads no clock, so tests drive it on an injected clock, deterministically and fast.
/// One indexed min-heap holds each job's next deadline; the effects keep the daemon's single timer
/// armed at its top, or disarmed when nothing waits.
public struct Scheduler: Sendable {
    /// The keys of the timer heap: one per job waiting for time.
    enum TimerKey: Hashable, Sendable {
        case job(JobID)
        /// The end of a request job's dedupe window.
        case dedupe(JobID)
        /// The next probe round of unreachable targets.
        case probe
    }

    /// Work the scheduler does once the store has committed a batch.
    enum PendingCommit: Sendable {
        case registration(Job, ConnectionID, RequestID, follow: Bool)
        case reply(ConnectionID, RequestID, Result<ReplyBody, SchedulerError>)
        /// A request job a countdown's expiry started.
        case spawn(Job)
        /// A `submit` deduplicated onto a job that was still waiting for its own commit.
        case duplicate(ConnectionID, RequestID, JobID, follow: Bool)
    }

    /// What the scheduler knows about a connection.
    struct ConnectionState: Sendable {
        var peer: Peer
        var watchedJobs: [JobID: [RequestID]] = [:]
        var watchedScopes: [String: [RequestID]] = [:]
        var waits: [JobID: Int] = [:]
        /// Jobs bound to this connection: cancelled when it closes.
        var boundJobs: Set<JobID> = []
    }

    /// A subscriber to job or scope events.
    struct Watcher: Hashable, Sendable {
        var connection: ConnectionID
        var tag: RequestID
        /// Only jobs of this owner reach the watcher; nil (root) sees every owner's.
        var ownerFilter: UInt32?
    }

    struct OwnedKey: Hashable, Sendable {
        var owner: UInt32
        var key: String
    }

    public internal(set) var configuration: SchedulerConfiguration
    let startedAt: ClockReading
    var random: RandomSource

    var jobs: [JobID: Job] = [:]
    var activeByKey: [OwnedKey: JobID] = [:]
    var activeByScope: [String: Set<JobID>] = [:]
    var timers = IndexedMinHeap<TimerKey, Instant>()
    var armed: Instant?

    var connections: [ConnectionID: ConnectionState] = [:]
    var jobWatchers: [JobID: [Watcher]] = [:]
    var scopeWatchers: [String: [Watcher]] = [:]
    var waiters: [JobID: [(ConnectionID, RequestID)]] = [:]

    var pendingCommits: [CommitToken: PendingCommit] = [:]
    var nextToken: UInt64 = 1
    /// Durable jobs written but not yet committed, so not yet live.
    var staged: [JobID: Job] = [:]
    var stagedCount: Int { staged.count }

    /// Recent `submit`s by fingerprint, each until its window ends, and the other way round.
    var dedupe: [DedupeKey: JobID] = [:]
    var dedupeKeys: [JobID: DedupeKey] = [:]

    /// Request jobs held while their targets are unreachable.
    var network = NetworkHold()

    /// Ended jobs in the order they ended, for retention. They are purged as events arrive, not by
    /// the timer, so an idle daemon never wakes up just to forget old jobs.
    var retained: [(id: JobID, endedAt: Instant)] = []
    var retainedHead = 0

    var counts: [UInt32: [JobKind: [JobState: Int]]] = [:]
    /// Jobs that have not ended.
    var liveJobs = 0
    var shuttingDown = false

    /// Creates an empty scheduler.
    ///
    /// - Parameters:
    ///   - configuration: limits and defaults.
    ///   - seed: seeds job ids; the daemon passes entropy, tests a constant.
    ///   - now: the start time, for the summary's uptime.
    public init(configuration: SchedulerConfiguration, seed: UInt64, now: ClockReading) {
        self.configuration = configuration
        self.random = RandomSource(seed: seed)
        self.startedAt = now
    }

    /// Handles one event and returns the effects it causes.
    public mutating func handle(_ event: SchedulerEvent, at now: ClockReading) -> [SchedulerEffect] {
        var effects: [SchedulerEffect] = []
        handle(event, at: now, into: &effects)
        return effects
    }

    /// Handles one event, appending the effects it causes to `effects`.
    public mutating func handle(_ event: SchedulerEvent, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        purgeExpiredRetention(at: now, into: &effects)
        switch event {
        case .connectionOpened(let id, let peer):
            connections[id] = ConnectionState(peer: peer)
        case .connectionClosed(let id):
            closeConnection(id, at: now, into: &effects)
        case .request(let connection, let request):
            handleRequest(request, from: connection, at: now, into: &effects)
        case .timerFired:
            fireDueTimers(at: now, into: &effects)
            // The one-shot timer has fired: always say how it should be armed now.
            armed = .distantPast
        case .httpFinished(let id, let attempt, let outcome):
            switch jobs[id]?.work {
            case .poll: pollFinished(id, attempt: attempt, outcome: outcome, at: now, into: &effects)
            case .request: deliveryFinished(id, attempt: attempt, outcome: outcome, at: now, into: &effects)
            case .group: memberFinished(id, request: attempt, outcome: outcome, at: now, into: &effects)
            case .countdown, nil: break
            }
        case .commitCompleted(let token, let failure):
            completeCommit(token, failure: failure, at: now, into: &effects)
        case .restore(let records):
            restore(records, at: now, into: &effects)
        case .reconfigure(let configuration):
            self.configuration = configuration
            enforceRetentionLimit(at: now, into: &effects)
        case .networkChanged:
            probeRound(at: now, into: &effects)
        case .shutdown:
            shuttingDown = true
        }
        updateTimer(into: &effects)
    }

    /// Puts a newly live job's next need for the timer in the heap; a poll's first request starts at once.
    mutating func schedule(_ job: Job, at now: ClockReading, startIfDue: Bool, into effects: inout [SchedulerEffect]) {
        switch job.work {
        case .countdown: scheduleCountdown(job, at: now.instant)
        case .poll: schedulePoll(job.id, at: now, startIfDue: startIfDue, into: &effects)
        case .request: scheduleDelivery(job.id, at: now, startIfDue: startIfDue, into: &effects)
        case .group: scheduleGroup(job.id, at: now, startIfDue: startIfDue, into: &effects)
        }
    }

    /// The earliest instant the timer should fire, if anything waits for time.
    public var nextDeadline: Instant? { timers.min?.priority }

    /// The number of jobs that have not ended.
    public var activeJobCount: Int { liveJobs }

    /// The number of open connections.
    public var connectionCount: Int { connections.count }

    /// Looks up a job by id, for tests and diagnostics.
    public func job(_ id: JobID) -> Job? { jobs[id] }

    private mutating func handleRequest(
        _ request: Request, from connection: ConnectionID, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard let peer = connections[connection]?.peer else { return }
        let outcome: Result<ReplyBody, SchedulerError>?
        switch request.body {
        case .hello(let hello):
            if hello.protocolVersion == ProtocolInfo.version {
                outcome = .success(
                    .hello(
                        HelloResult(
                            protocolVersion: ProtocolInfo.version, server: "reqd",
                            version: ProtocolInfo.softwareVersion, uid: peer.uid)))
            } else {
                outcome = .failure(
                    SchedulerError(
                        .unsupportedProtocol,
                        "this daemon speaks protocol \(ProtocolInfo.version), not \(hello.protocolVersion)"))
            }
        case .registerCountdown(let spec):
            outcome = registerCountdown(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .registerPoll(let spec):
            outcome = registerPoll(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .submit(let spec):
            outcome = submit(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .retry(let retry):
            outcome = self.retry(retry, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .registerGroup(let spec):
            outcome = registerGroup(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .cancel(let selector):
            outcome = cancel(selector, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .status(let status):
            outcome = self.status(status, peer: peer, at: now)
        case .list(let filter):
            outcome = list(filter, peer: peer, at: now)
        case .watch(let selector):
            outcome = watch(selector, peer: peer, connection: connection, tag: request.id, at: now)
        case .unwatch(let unwatch):
            outcome = .success(.unwatched(UnwatchResult(removed: removeWatches(connection: connection, tag: unwatch.watch))))
        case .wait(let wait):
            outcome = self.wait(wait, peer: peer, connection: connection, requestID: request.id, at: now)
        }
        if let outcome {
            effects.append(.reply(connection, request.id, outcome))
        }
    }

    private mutating func updateTimer(into effects: inout [SchedulerEffect]) {
        let next = timers.min?.priority
        guard next != armed else { return }
        armed = next
        effects.append(next.map { .arm($0) } ?? .disarm)
    }


    private mutating func fireDueTimers(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        while let entry = timers.popMin(notAfter: now.instant) {
            switch entry.key {
            case .job(let id):
                fireJob(id, at: now, into: &effects)
            case .dedupe(let id):
                forgetDedupe(id)
            case .probe:
                probeTimerFired(at: now, into: &effects)
            }
        }
    }

    private mutating func fireJob(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let job = jobs[id] else { return }
        if job.state == .dead {
            forgetJob(id, into: &effects)
            return
        }
        guard job.state == .active else { return }
        switch job.work {
        case .countdown(let countdown):
            fireCountdown(job, countdown, at: now, into: &effects)
        case .poll(let poll):
            firePoll(job, poll, at: now, into: &effects)
        case .request(let delivery):
            fireDelivery(job, delivery, at: now, into: &effects)
        case .group(let group):
            fireGroup(job, group, at: now, into: &effects)
        }
    }

    mutating func nextCommitToken() -> CommitToken {
        defer { nextToken += 1 }
        return CommitToken(nextToken)
    }

    mutating func adjustCount(owner: UInt32, kind: JobKind, state: JobState, by delta: Int) {
        counts[owner, default: [:]][kind, default: [:]][state, default: 0] += delta
        if state == .active { liveJobs += delta }
    }
}
