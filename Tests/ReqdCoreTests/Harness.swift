import ReqdProtocol
import Testing
@testable import ReqdCore

/// Drives a scheduler on an injected clock: no sleeps, no real time.
///
/// Like AsyncHTTPClient's `MockConnectionPool`, it plays the executor and the sockets, and records
/// an `Issue` for an effect they could not carry out: a second `.send` of a request already on the
/// wire, an `.abort` of one that is not, or a `.deliver` or `.reply` to a connection that is not
/// open. (Arming in the past is possible: a restore arms deadlines that passed while it was down.)
struct Harness {
    var scheduler: Scheduler
    var now: ClockReading
    /// The instant the one timer is armed for, as the effects left it.
    var armed: Instant?
    /// How many times the scheduler asked the daemon to give memory back.
    private(set) var memoryReleases = 0
    /// How many times the scheduler handed over storage to free off its queue.
    private(set) var disposals = 0
    var nextRequest: Int64 = 1
    /// Commits complete automatically unless this is false.
    var autoCommit = true
    var pendingBarriers: [CommitToken] = []
    var persisted: [StoreChange] = []
    /// A real store the persisted changes are written to as well (`REQD_CORE_STORE`), or nil.
    var store = HarnessStore.fromEnvironment()
    /// What the scheduler asked the shared store, in order; a test answers them.
    var clusterQueries: [ClusterQuery] = []
    /// The jobs held elsewhere whose holders were told that no one here watches them any more.
    var unwatchedElsewhere: [JobID] = []
    /// The requests on the wire: sent, and neither aborted nor reported finished.
    private(set) var onWire: Set<WireRequest> = []
    /// The connections opened and not closed, as the events fed to the scheduler say.
    private(set) var openConnectionIDs: Set<ConnectionID> = []

    /// One request on the wire: a job's attempt (or a group's request number).
    struct WireRequest: Hashable {
        var job: JobID
        var attempt: UInt32
    }

    static let second: Int64 = 1_000_000_000
    static let ms: Int64 = 1_000_000

    init(configuration: SchedulerConfiguration = SchedulerConfiguration(), seed: UInt64 = 42) {
        now = ClockReading(instant: Instant(nanoseconds: 1_000 * Self.second), wall: WallTime(nanosecondsSinceEpoch: 1_800_000_000 * Self.second))
        scheduler = Scheduler(configuration: configuration, seed: seed, now: now)
        openConnections()
    }

    /// Opens the three test connections: uid 1000, uid 1001 and root.
    mutating func openConnections() {
        _ = handle(.connectionOpened(ConnectionID(1), Peer(uid: 1000, pid: 10)))
        _ = handle(.connectionOpened(ConnectionID(2), Peer(uid: 1001, pid: 11)))
        _ = handle(.connectionOpened(ConnectionID(3), Peer(uid: 0, pid: 12)))
    }

    /// Handles an event, tracks the timer, the store, the wire and the connections, and completes
    /// commits when asked to.
    mutating func handle(_ event: SchedulerEvent) -> [SchedulerEffect] {
        switch event {
        case .connectionOpened(let id, _): openConnectionIDs.insert(id)
        case .connectionClosed(let id): openConnectionIDs.remove(id)
        case .httpFinished(let job, let attempt, _, _): onWire.remove(WireRequest(job: job, attempt: attempt))
        case .commitCompleted(let token, let failure): store?.complete(token, failure: failure)
        default: break
        }
        var held: [CommitToken] = []
        defer { store?.endTurn(barriers: held) }
        var effects = scheduler.handle(event, at: now)
        var index = 0
        while index < effects.count {
            switch effects[index] {
            case .arm(let instant): armed = instant
            case .disarm: armed = nil
            case .persist(let change):
                persisted.append(change)
                store?.stage(change)
            case .commitBarrier(let token):
                if autoCommit {
                    effects += scheduler.handle(.commitCompleted(token, failure: nil), at: now)
                } else {
                    held.append(token)
                    pendingBarriers.append(token)
                }
            case .send(let send):
                if !onWire.insert(WireRequest(job: send.job, attempt: send.attempt)).inserted {
                    Issue.record("\(event): sent \(send.job) attempt \(send.attempt), which is already on the wire")
                }
            case .abort(let job, let attempt):
                if onWire.remove(WireRequest(job: job, attempt: attempt)) == nil {
                    Issue.record("\(event): aborted \(job) attempt \(attempt), which is not on the wire")
                }
            case .deliver(let delivered, let recipients):
                for recipient in recipients where !openConnectionIDs.contains(recipient.connection) && recipient.connection != .cluster {
                    Issue.record("\(event): delivered \(delivered.type.rawValue) of \(delivered.job) to \(recipient.connection), which is not open")
                }
            case .reply(let connection, let id, _):
                if !openConnectionIDs.contains(connection) {
                    Issue.record("\(event): replied to request \(id) on \(connection), which is not open")
                }
            case .replyWithStoredAttempts(let connection, let id, var info):
                // As the store answers: the job's attempts as persisted so far, the last few kept.
                if let store {
                    info.attempts = store.attempts(of: info.id)
                } else {
                    var log = AttemptLog()
                    for change in persisted where change.jobID == info.id {
                        if case .attempt(_, let attempt) = change { log.append(attempt) }
                        if case .attemptAddress(_, let number, let address) = change { log.setAddress(address, ofAttempt: number) }
                    }
                    info.attempts = log.entries
                }
                effects[index] = .reply(connection, id, .success(.job(JobResult(job: info))))
                continue
            case .askCluster(let query): clusterQueries.append(query)
            case .unwatchElsewhere(let job): unwatchedElsewhere.append(job)
            case .releaseMemory: memoryReleases += 1
            case .dispose(let disposal):
                disposals += 1
                disposal.free()
            case .notice, .breakerChanged, .debug, .counted, .requestTimedOut: break
            }
            index += 1
        }
        return effects
    }

    mutating func request(_ body: RequestBody, connection: UInt64 = 1) -> [SchedulerEffect] {
        defer { nextRequest += 1 }
        return handle(.request(ConnectionID(connection), Request(id: .number(nextRequest), body: body)))
    }

    /// Moves both clocks forward, as real time passing does.
    mutating func advance(_ nanoseconds: Int64) {
        now.instant = now.instant.advanced(by: nanoseconds)
        now.wall.nanosecondsSinceEpoch += nanoseconds
    }

    /// Moves time forward to the armed deadline and fires the timer, as the daemon's timer would,
    /// again at once while a turn's share of a burst leaves entries due.
    mutating func fireAtArmedDeadline() -> [SchedulerEffect] {
        guard let armed else { return [] }
        let delta = armed.nanoseconds(since: now.instant)
        if delta > 0 { advance(delta) }
        return fireDue()
    }

    /// Fires the timer now, and again while the scheduler arms it at or before now (a burst
    /// larger than a turn's share), as the daemon's timer does.
    mutating func fireDue() -> [SchedulerEffect] {
        var effects = handle(.timerFired)
        var turns = 1
        while let armed, armed <= now.instant {
            guard turns < 100_000 else {
                Issue.record("the timer is armed in the past after \(turns) turns")
                break
            }
            effects += handle(.timerFired)
            turns += 1
        }
        return effects
    }

    /// Registers a countdown and returns its id and the reply.
    mutating func countdown(
        key: String?, seconds: Int64, tickMs: Int64? = nil, scope: String? = nil, follow: Bool = false,
        ephemeral: Bool = false, connection: UInt64 = 1
    ) -> (id: JobID, reply: RegisterResult, effects: [SchedulerEffect]) {
        let effects = request(
            .registerCountdown(
                CountdownSpec(key: key, durationMs: seconds * 1000, tickMs: tickMs, scope: scope, ephemeral: ephemeral, follow: follow)),
            connection: connection)
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("registration failed: \(effects)")
        }
        return (JobID(reply.job.id), reply, effects)
    }
}

extension Harness {
    /// The rows the store holds now: every persisted change applied in order, or the real store's.
    var storedRecords: [JobRecord] {
        if let store { return store.records() }
        var latest: [String: JobRecord] = [:]
        for change in persisted {
            if case .insert(let record) = change { latest[record.id] = record }
            if latest[change.jobID]?.apply(change) == false { latest[change.jobID] = nil }
        }
        // As the store reads them back: an active poll's attempts come with its row.
        for (id, record) in latest where record.kind == .poll && record.state == .active {
            var log = AttemptLog()
            for case .attempt(id, let attempt) in persisted { log.append(attempt) }
            if !log.entries.isEmpty { latest[id]?.attempts = log.entries }
        }
        return Array(latest.values)
    }

    /// A daemon started again from the stored rows (those `keeping` keeps), `down` nanoseconds
    /// after this one stopped, with the effects of the restore.
    func restarted(
        after down: Int64 = 0, configuration: SchedulerConfiguration = SchedulerConfiguration(),
        keeping: (JobRecord) -> Bool = { _ in true }
    ) -> (harness: Harness, effects: [SchedulerEffect]) {
        var restarted = Harness()
        restarted.store = store?.reopened()
        restarted.now = now
        restarted.advance(down)
        restarted.scheduler = Scheduler(configuration: configuration, seed: 1, now: restarted.now)
        restarted.scheduler.zones = scheduler.zones
        restarted.openConnections()
        let effects = restarted.handle(.restore(storedRecords.filter(keeping)))
        return (restarted, effects)
    }

    /// Registers a poll job and returns its id and the effects.
    mutating func poll(_ spec: PollSpec, connection: UInt64 = 1) -> (id: JobID, effects: [SchedulerEffect]) {
        let effects = request(.registerPoll(spec), connection: connection)
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("registration failed: \(effects)")
        }
        return (JobID(reply.job.id), effects)
    }

    /// Answers a poll's request with a JSON body (parsed as the executor would) and a status.
    mutating func answer(_ send: HTTPSend, status: Int = 200, json: JSONValue?, text: String? = nil) -> [SchedulerEffect] {
        let body = text.map { Array($0.utf8) } ?? json.map(JSONBody.encode) ?? []
        return handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status, body: body, json: json))))
    }

    /// Ends a poll's request with a transport failure.
    mutating func fail(_ send: HTTPSend, _ message: String = "connection refused") -> [SchedulerEffect] {
        handle(.httpFinished(send.job, attempt: send.attempt, .failure(message)))
    }
}

extension JSONValue {
    /// `{"state": state, "progress": progress}`.
    static func remote(state: String, progress: Double? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["state": .string(state)]
        if let progress { members["progress"] = .number(progress) }
        return .object(members)
    }
}

extension Array where Element == SchedulerEffect {
    var sends: [HTTPSend] { compactMap { if case .send(let s) = $0 { return s } else { return nil } } }

    var aborts: [(JobID, UInt32)] { compactMap { if case .abort(let j, let a) = $0 { return (j, a) } else { return nil } } }

    var debugNotes: [String] { compactMap { if case .debug(_, let m) = $0 { return m } else { return nil } } }

    var replies: [(connection: ConnectionID, id: RequestID, result: Result<ReplyBody, SchedulerError>)] {
        compactMap { if case .reply(let c, let i, let r) = $0 { return (c, i, r) } else { return nil } }
    }

    var events: [(event: JobEvent, to: [Recipient])] {
        compactMap { if case .deliver(let e, let r) = $0 { return (e, r) } else { return nil } }
    }

    func events(_ type: JobEventType) -> [JobEvent] { events.map(\.event).filter { $0.type == type } }

    var arms: [Instant] { compactMap { if case .arm(let i) = $0 { return i } else { return nil } } }

    var disarms: Int { filter { if case .disarm = $0 { return true } else { return false } }.count }

    var errorCodes: [SchedulerError.Code] {
        replies.compactMap { if case .failure(let e) = $0.result { return e.code } else { return nil } }
    }
}
