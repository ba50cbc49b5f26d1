import ReqdProtocol

extension Scheduler {
    /// Validates a key or scope: not empty, not too long, no control characters.
    func validateName(_ field: String, _ value: String) throws(SchedulerError) {
        guard !value.isEmpty else { throw SchedulerError(.badField, "'\(field)' must not be empty") }
        guard value.utf8.count <= configuration.maxNameBytes else {
            throw SchedulerError(.badField, "'\(field)' is longer than \(configuration.maxNameBytes) bytes")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SchedulerError(.badField, "'\(field)' must not contain control characters")
        }
    }

    /// Validates what every registration may carry: its key, its scope, and whether it is bound to
    /// its connection. A bound job is never stored (a restart closes every connection), so binding
    /// a job that asks to be durable is a conflict.
    func validateRegistration(key: String?, scope: String?, ephemeral: Bool?, bindConnection: Bool?) throws(SchedulerError) {
        if let key { try validateName("key", key) }
        if let scope { try validateName("scope", scope) }
        if bindConnection == true, ephemeral == false {
            throw SchedulerError(
                .conflictingFields, "a job bound to its connection is never stored; drop 'ephemeral: false' or 'bind_connection'")
        }
    }

    /// Refuses new work when the daemon is stopping or full.
    func checkCapacity() throws(SchedulerError) {
        if shuttingDown { throw SchedulerError(.shuttingDown, "the daemon is stopping") }
        guard activeJobCount + stagedCount < configuration.maxActiveJobs else {
            throw SchedulerError(.tooManyJobs, "the daemon already holds \(configuration.maxActiveJobs) jobs")
        }
    }

    /// A new active job with a fresh id of its kind, owned by the caller; bound to `bindTo` when given.
    mutating func newJob(
        owner: UInt32, key: String?, scope: String?, ephemeral: Bool?, bindTo: ConnectionID? = nil, work: Job.Work,
        at now: ClockReading
    ) -> Job {
        var id = random.jobID(kind: work.kind)
        while jobs[id] != nil || staged[id] != nil { id = random.jobID(kind: work.kind) }
        return Job(
            id: id, owner: owner, key: key, scope: scope, durable: !(ephemeral ?? false) && bindTo == nil, boundTo: bindTo,
            createdAt: now.wall, state: .active, endedAt: nil, reason: nil, replacedBy: nil, work: work)
    }

    /// Starts a validated job now, or, when it is durable, writes it and starts it once committed.
    mutating func admit(
        _ job: Job, connection: ConnectionID, requestID: RequestID, follow: Bool, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let follower = follow ? Recipient(connection: connection, watch: requestID) : nil
        guard job.durable else {
            return .success(activate(job, follower: follower, at: now, into: &effects))
        }
        stage(job, .registration(job, connection, requestID, follow: follow), at: now, into: &effects)
        return nil
    }

    /// Writes a durable job and holds it until the store has committed it; `pending` says what then.
    mutating func stage(_ job: Job, _ pending: PendingCommit, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let token = nextCommitToken()
        pendingCommits[token] = pending
        staged[job.id] = job
        effects.append(.persist(.insert(record(of: job, at: now))))
        effects.append(.commitBarrier(token))
    }

    /// Makes a job live: it replaces the active job with its key, joins the indexes and the timer heap.
    /// `follower`, when given, receives its events from the first one on.
    mutating func activate(
        _ job: Job, follower: Recipient?, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) -> ReplyBody {
        var replaced: JobID?
        if let key = job.key, let previous = activeByKey[OwnedKey(owner: job.owner, key: key)], let old = jobs[previous] {
            replaced = previous
            finish(old, as: .cancelled, reason: .superseded, replacedBy: job.id, at: now, into: &effects)
        }
        jobs[job.id] = job
        if let key = job.key { activeByKey[OwnedKey(owner: job.owner, key: key)] = job.id }
        if let scope = job.scope { activeByScope[scope, default: []].insert(job.id) }
        if let connection = job.boundTo { connections[connection]?.boundJobs.insert(job.id) }
        adjustCount(owner: job.owner, kind: job.kind, state: .active, by: 1)
        var registered = makeEvent(.registered, job, at: now)
        registered.remainingMs = job.countdown.map { Instant.roundedMilliseconds($0.deadline.nanoseconds(since: now.instant)) }
        effects.append(.deliver(registered, to: recipients(of: job)))
        if let follower, connections[follower.connection] != nil {
            addJobWatcher(job.id, connection: follower.connection, tag: follower.watch)
        }
        schedule(job, at: now, startIfDue: true, into: &effects)
        return .registered(RegisterResult(job: info(jobs[job.id] ?? job, at: now), replaced: replaced?.rawValue))
    }

    /// Ends a job: records how, tells its watchers and waiters, persists it and starts its retention.
    mutating func finish(
        _ job: Job, as state: JobState, reason: CancelReason?, replacedBy: JobID?, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) {
        var ended = job
        ended.state = state
        ended.reason = reason
        ended.replacedBy = replacedBy
        ended.endedAt = now.wall
        jobs[job.id] = ended
        timers.remove(.job(job.id))
        for attempt in job.onWire {
            effects.append(.abort(job.id, attempt: attempt))
        }
        if state == .cancelled { forgetDedupe(job.id) }
        if job.kind == .request { forgetHold(job) }
        if let connection = job.boundTo { connections[connection]?.boundJobs.remove(job.id) }
        if let key = job.key, activeByKey[OwnedKey(owner: job.owner, key: key)] == job.id {
            activeByKey[OwnedKey(owner: job.owner, key: key)] = nil
        }
        if let scope = job.scope {
            activeByScope[scope]?.remove(job.id)
            if activeByScope[scope]?.isEmpty == true { activeByScope[scope] = nil }
        }
        adjustCount(owner: job.owner, kind: job.kind, state: .active, by: -1)
        adjustCount(owner: job.owner, kind: job.kind, state: state, by: 1)

        var event = makeEvent(JobEventType(ending: state) ?? .cancelled, ended, at: now)
        if ended.kind == .group, state != .cancelled {
            // A group completes once, with `completed`; a cancelled one never does.
            event.type = .completed
            event.state = state
        }
        event.lateByMs = ended.countdown?.lateBy.map { Double($0) / 1e6 }
        event.spawned = (ended.countdown?.spawned ?? ended.group?.spawned)?.rawValue
        event.error = ended.error
        event.status = ended.result?.status
        effects.append(.deliver(event, to: recipients(of: ended)))
        endJobWatches(job.id)
        if let waiting = waiters.removeValue(forKey: job.id) {
            let view = info(ended, at: now)
            for (connection, requestID) in waiting {
                connections[connection]?.waits[job.id] = nil
                effects.append(.reply(connection, requestID, .success(.job(JobResult(job: view)))))
            }
        }
        if ended.durable {
            effects.append(.persist(.update(record(of: ended, at: now))))
        }
        if state == .dead {
            // Dead letters are kept longer, and leave through the one timer.
            timers.set(.job(job.id), priority: now.instant.advanced(by: configuration.deadRetentionNanos))
        } else {
            retain(job.id, endedAt: now.instant, at: now, into: &effects)
        }
    }

    /// Cancels what a selector names among the caller's active jobs.
    mutating func cancel(
        _ selector: JobSelector, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let targets: [JobID]
        switch resolve(selector, peer: peer) {
        case .failure(let error): return .failure(error)
        case .success(let ids): targets = ids.filter { jobs[$0]?.state == .active }
        }
        var touchedDisk = false
        for id in targets {
            guard let job = jobs[id] else { continue }
            touchedDisk = touchedDisk || job.durable
            finish(job, as: .cancelled, reason: .requested, replacedBy: nil, at: now, into: &effects)
        }
        let result = Result<ReplyBody, SchedulerError>.success(.cancelled(CancelResult(cancelled: targets.map(\.rawValue))))
        guard touchedDisk else { return result }
        let token = nextCommitToken()
        pendingCommits[token] = .reply(connection, requestID, result)
        effects.append(.commitBarrier(token))
        return nil
    }

    /// The job ids a selector names for this caller: exactly one of job, key or scope.
    func resolve(_ selector: JobSelector, peer: Peer) -> Result<[JobID], SchedulerError> {
        let given = [selector.job != nil, selector.key != nil, selector.scope != nil].filter { $0 }.count
        guard given == 1 else {
            return .failure(
                SchedulerError(
                    given == 0 ? .missingField : .conflictingFields, "give exactly one of 'job', 'key' or 'scope'"))
        }
        if let raw = selector.job {
            guard let job = jobs[JobID(raw)], peer.mayAccess(ownerUID: job.owner) else {
                return .failure(SchedulerError(.unknownJob, "no job '\(raw)'"))
            }
            return .success([job.id])
        }
        if let key = selector.key {
            guard let id = activeByKey[OwnedKey(owner: peer.uid, key: key)] else {
                return .failure(SchedulerError(.unknownJob, "no active job with key '\(key)'"))
            }
            return .success([id])
        }
        let scope = selector.scope ?? ""
        let ids = (activeByScope[scope] ?? []).filter { id in jobs[id].map { peer.mayAccess(ownerUID: $0.owner) } ?? false }
        return .success(ids.sorted())
    }

    /// A job event with the job's identity filled in.
    func makeEvent(_ type: JobEventType, _ job: Job, at now: ClockReading) -> JobEvent {
        var event = JobEvent(
            type: type, job: job.id.rawValue, kind: job.kind, key: job.key, scope: job.scope, owner: job.owner,
            at: now.wall, reason: job.reason, replacedBy: job.replacedBy?.rawValue)
        if let poll = job.poll {
            event.polls = poll.polls
            event.failures = poll.failures
            event.progress = poll.progress
        }
        if let delivery = job.delivery {
            event.attempt = Int(delivery.attempts)
        }
        if let group = job.group {
            event.done = group.done
            event.total = group.members.count
            event.failures = group.failures
        }
        return event
    }
}
