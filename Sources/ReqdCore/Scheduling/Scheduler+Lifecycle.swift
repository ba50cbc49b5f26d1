import ReqdProtocol

/// How jobs come and go: admitted, made live, ended, forgotten. Ending a job touches every part,
/// always in the same order: the job table, the timer heap and the wire, the dedupe index and the
/// network hold, the watchers and waiters, then the store.
extension Scheduler {
    /// Refuses a new active job of `owner` when the daemon is stopping or full, or the owner is at
    /// its quota; a job that replaces the holder of `key` adds none.
    func checkCapacity(for owner: UInt32, key: String? = nil) throws(SchedulerError) {
        if shuttingDown { throw SchedulerError(.shuttingDown, "the daemon is stopping") }
        if let key, table.holder(ofKey: key, owner: owner) != nil { return }
        guard table.liveJobs + commits.stagedCount < configuration.maxActiveJobs else {
            throw SchedulerError(.tooManyJobs, "the daemon already holds \(configuration.maxActiveJobs) jobs")
        }
        try checkActiveQuota(of: owner)
    }

    /// A new active job with a fresh id of its kind, owned by `owner`; bound to `bindTo` when given.
    mutating func newJob(
        owner: UInt32, key: String?, scope: String?, ephemeral: Bool?, bindTo: ConnectionID? = nil, work: Job.Work,
        at now: ClockReading
    ) -> Job {
        var id = random.jobID(kind: work.kind, at: now.wall)
        while table[id] != nil || commits.isStaged(id) { id = random.jobID(kind: work.kind, at: now.wall) }
        // Jobs made in one turn share its clock reading: each is made a nanosecond after the one
        // before, so they keep their order in `list`, across restarts too. Only within a
        // millisecond: after a step back of the clock, jobs take the clock's time again, as
        // `created_at` also starts a restored request or poll that never ran.
        let last = lastCreatedAt.nanosecondsSinceEpoch
        let nudged = now.wall.nanosecondsSinceEpoch <= last && last - now.wall.nanosecondsSinceEpoch < Self.creationNudgeWindowNanos
        lastCreatedAt = nudged ? WallTime(nanosecondsSinceEpoch: last + 1) : now.wall
        // A job with a key is made after every job that holds it or waits for its commit with it,
        // even after a step back of the clock: of two active rows with one key, which a crash
        // between two commits can leave on SQLite, a restore keeps the one made last.
        if let key, let newest = newestCreation(withKey: key, owner: owner), newest >= lastCreatedAt {
            lastCreatedAt = WallTime(nanosecondsSinceEpoch: newest.nanosecondsSinceEpoch + 1)
        }
        return Job(
            id: id, owner: owner, key: key, scope: scope, durable: !(ephemeral ?? false) && bindTo == nil, boundTo: bindTo,
            createdAt: lastCreatedAt, state: .active, endedAt: nil, reason: nil, replacedBy: nil, work: work)
    }

    /// When the newest job of `owner` with `key` was made: the one holding it, or one staged with it.
    private func newestCreation(withKey key: String, owner: UInt32) -> WallTime? {
        var newest = table.holder(ofKey: key, owner: owner).flatMap { table[$0]?.createdAt }
        for id in commits.staged(key: key, owner: owner, scope: nil, mayCancel: { _ in true }) {
            guard let made = commits.staged(id)?.createdAt else { continue }
            if newest.map({ made > $0 }) ?? true { newest = made }
        }
        return newest
    }

    /// Starts a validated job now, or, when it is durable, writes it and starts it once committed.
    mutating func admit(
        _ job: Job, connection: ConnectionID, requestID: RequestID, follow: Bool, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        guard job.durable else {
            let follower = follow ? Recipient(connection: connection, watch: requestID) : nil
            if let key = job.key { commits.supersedeStaged(key: key, owner: job.owner, by: job.id) }
            activate(job, follower: follower, replyTo: (connection, requestID), at: now, into: &effects)
            return nil
        }
        stage(job, .registration(job, connection, requestID, follow: follow), at: now, into: &effects)
        return nil
    }

    /// Writes a durable job and holds it until the store has committed it; `then` says what follows.
    mutating func stage(_ job: Job, _ then: PendingCommit, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let token = commits.stage(job, then)
        effects.append(.persist(.insert(JobRecord(job, at: now))))
        effects.append(.commitBarrier(token))
    }

    /// Makes a job live: it replaces the active job with its key, joins the table, and its machine
    /// starts. `follower`, when given, receives its events from the first one on.
    ///
    /// With `replyTo`, the registration's reply is among the effects, before its `registered`
    /// event and any event its machine makes on starting (a request to a target known unreachable is held at once): a client reads its
    /// reply before its job's events. The reply shows the job as it is once started. With
    /// `endingAtOnce`, something ended the job while it waited for its commit: it joins the table,
    /// its machine never starts, and it ends cancelled at once. When superseded, a later
    /// registration with its key took over, and the key stays where it is.
    @discardableResult
    mutating func activate(
        _ job: Job, follower: Recipient?, replyTo: (ConnectionID, RequestID)? = nil, at now: ClockReading,
        into effects: inout [SchedulerEffect], endingAtOnce ending: StagedEnding? = nil
    ) -> ReplyBody {
        var replaced: JobID?
        var superseded = false
        if case .superseded = ending { superseded = true }
        let holder = job.key.flatMap { table.holder(ofKey: $0, owner: job.owner) }
        if let holder, !superseded {
            replaced = holder
            finish(holder, as: .cancelled, reason: .superseded, replacedBy: job.id, at: now, into: &effects)
        }
        table.insert(job)
        if superseded, let key = job.key, let holder { table.assignKey(key, owner: job.owner, to: holder) }
        if let connection = job.boundTo { subscriptions.bind(job.id, to: connection) }
        // The reply goes before every event of the job, its `registered` to scope watchers too.
        let replyAt = effects.count
        var registered = JobEvent(.registered, of: job, at: now)
        registered.remainingMs = job.countdown.map { Instant.roundedMilliseconds($0.deadline.nanoseconds(since: now.instant)) }
        effects.append(.deliver(registered, to: subscriptions.recipients(of: job.header)))
        if let follower {
            subscriptions.watch(job: job.id, connection: follower.connection, tag: follower.watch)
        }
        switch ending {
        case .superseded(let newer)?:
            finish(job.id, as: .cancelled, reason: .superseded, replacedBy: newer, at: now, into: &effects)
        case .requested?:
            finish(job.id, as: .cancelled, reason: .requested, replacedBy: nil, at: now, into: &effects)
        case nil:
            advance(job.id, at: now, into: &effects)
        }
        let body = ReplyBody.registered(RegisterResult(job: JobInfo(self.job(job.id) ?? job, at: now), replaced: replaced?.rawValue))
        if let (connection, requestID) = replyTo {
            effects.insert(.reply(connection, requestID, .success(body)), at: replyAt)
        }
        return body
    }

    /// A job's machine decided it ended: its report, if any, starts as a job of its own once the
    /// end is recorded, so it exists exactly when the end does.
    mutating func ended(_ id: JobID, _ end: JobEnd, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        table.update(id, result: nil, error: end.error)
        var spawned: Job?
        if var report = end.report, let parent = table[id] {
            if let body = reportBody(of: id, state: end.state) { report.request.body = body }
            // The request of an expiry that fired more than a second late (after downtime) is
            // overdue, and waits for a catch-up slot (`CatchupPacer`) even once its commit is done.
            let late = table.countdowns[id].map { now.instant.nanoseconds(since: $0.machine.deadline) > CatchupPacer.overdueAfter }
            let job = spawnedJob(report, of: parent, catchUp: late ?? false, at: now)
            table.setSpawned(job.id, of: id)
            spawned = job
        }
        finish(id, as: end.state, reason: nil, replacedBy: nil, at: now, into: &effects)
        if let spawned { start(spawned, at: now, into: &effects) }
    }

    /// The JSON body of a report that says how a job ended: the outcome of a request job, the
    /// result of a group. Nil for a countdown, whose `on_expire` request is sent as it was given.
    private func reportBody(of id: JobID, state: JobState) -> [UInt8]? {
        guard let job = job(id) else { return nil }
        switch job.kind {
        case .countdown, .poll, .schedule: return nil
        case .request: return Delivery.report(of: job, state: state).map(JSONBody.encode)
        case .group: return Group.reportBody(of: job, state: state, limit: configuration.maxRequestBodyBytes)
        }
    }

    /// The request job another job's end starts (a countdown's `on_expire`, a group's
    /// `on_complete`, a request's `on_success` or `on_failure`): owned by the same uid, in the same
    /// scope, as durable as its parent; `catchUp` when it is overdue work.
    mutating func spawnedJob(_ template: Delivery, of parent: JobHeader, catchUp: Bool, at now: ClockReading) -> Job {
        var delivery = template
        delivery.parent = parent.id
        delivery.nextAttempt = now.instant
        delivery.catchUp = catchUp
        return newJob(owner: parent.owner, key: nil, scope: parent.scope, ephemeral: !parent.durable, work: .request(delivery), at: now)
    }

    /// Starts a spawned job. A durable one is written in the same transaction as its parent's end,
    /// which the caller has just persisted, and sent once that commit is done.
    mutating func start(_ spawned: Job, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if spawned.durable {
            stage(spawned, .spawn(spawned), at: now, into: &effects)
        } else {
            activate(spawned, follower: nil, at: now, into: &effects)
        }
    }

    /// Ends an active job: records how, aborts its requests, tells its watchers and waiters,
    /// persists it and starts its retention (a dead letter's ends through the timer).
    mutating func finish(
        _ id: JobID, as state: JobState, reason: EventReason?, replacedBy: JobID?, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) {
        guard let header = table[id], header.isActive else { return }
        let aborted = table.onWire(id)
        if header.kind == .group { table.groups[id]?.machine.endOvertaken() }
        table.end(id, as: state, reason: reason, replacedBy: replacedBy, at: now.wall)
        timers.remove(.job(id))
        for attempt in aborted {
            effects.append(.abort(id, attempt: attempt))
        }
        ledger.jobEnded(id)
        if !limiter.isEmpty { limiter.jobEnded(id) }
        shrinking.removed()
        if state == .cancelled { forgetDedupe(id) }
        if header.kind == .request { forgetHold(id) }
        guard let ended = job(id) else { return }
        effects.append(.deliver(JobEvent(endOf: ended, at: now), to: subscriptions.recipients(of: ended.header)))
        let waiting = subscriptions.jobEnded(ended.header)
        if !waiting.isEmpty {
            let view = JobInfo(ended, at: now)
            for (connection, request) in waiting {
                effects.append(.reply(connection, request, .success(.job(JobResult(job: view)))))
            }
        }
        if ended.durable {
            persistProgress(of: ended, at: now, into: &effects)
            if ended.kind == .poll { persistPollAttempts(id, releasing: true, into: &effects) }
        }
        table.retireMachine(id)
        if state == .dead {
            // Dead letters are kept longer, and leave through the one timer or past their caps.
            timers.set(.job(id), priority: now.instant.advanced(by: configuration.deadRetentionNanos))
        } else {
            table.retain(id, endedAt: now.instant)
        }
        // A schedule hears of its run's end after the run's own watchers have.
        if let parent = ended.delivery?.parent, parent.kind == .schedule {
            scheduleRunEnded(parent, run: id, as: state, at: now, into: &effects)
        }
        if state == .dead { capDeadLetters(died: id, owner: header.owner, at: now, into: &effects) }
    }

    /// Removes an ended job from memory and, unless another daemon holds its row now, from the store.
    mutating func forget(_ id: JobID, persisting: Bool = true, into effects: inout [SchedulerEffect]) {
        guard let header = table.remove(id) else { return }
        commits.setUnstored(id, false)
        shrinking.removed()
        timers.remove(.job(id))
        if header.durable, persisting { effects.append(.persist(.delete(id.rawValue))) }
    }

    /// Forgets an ended job whose retention is over. Its dedupe window may outlast it: the window
    /// keeps answering with the job's brief view (as many as retention keeps jobs, at most).
    mutating func forgetRetained(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if id.kind == .request, dedupe.remembers(id), dedupe.forgottenCount < configuration.maxRetainedJobs, let job = table.job(id) {
            dedupe.keepForgotten(JobInfo(job, at: now, brief: true))
        }
        forget(id, into: &effects)
    }

    /// Forgets a job's dedupe fingerprint and the end of its window.
    mutating func forgetDedupe(_ id: JobID) {
        if dedupe.forget(id) { timers.remove(.dedupe(id)) }
    }
}
