import ReqdProtocol

/// Routing a client's request to what handles it, and the operations that create or change jobs.
///
/// A handler returns its reply, or nil when the reply waits (for a commit, or for a job to end).
extension Scheduler {
    /// Answers a request now, or arranges for its reply to follow (a commit, a job's end).
    mutating func handleRequest(
        _ request: Request, from connection: ConnectionID, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard let peer = subscriptions.peer(of: connection) else { return }
        let outcome: Result<ReplyBody, SchedulerError>?
        switch request.body {
        case .hello(let hello):
            outcome = self.hello(hello, peer: peer)
        case .registerCountdown(let spec):
            outcome = register(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .registerPoll(let spec):
            outcome = register(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .registerGroup(let spec):
            outcome = register(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .submit(let spec):
            outcome = submit(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .retry(let retry):
            outcome = self.retry(retry, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .delete(let deletion):
            outcome = delete(deletion, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .cancel(let selector):
            outcome = cancel(selector, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .status(let status):
            outcome = self.status(status, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .list(let filter):
            outcome = list(filter, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .watch(let selector):
            outcome = watch(selector, peer: peer, connection: connection, tag: request.id, at: now, into: &effects)
        case .unwatch(let unwatch):
            outcome = .success(.unwatched(UnwatchResult(removed: subscriptions.unwatch(connection: connection, tag: unwatch.watch))))
        case .wait(let wait):
            outcome = self.wait(wait, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .metrics(let metrics):
            outcome = self.metrics(metrics, peer: peer, at: now)
        case .registerSchedule(let spec):
            outcome = registerSchedule(spec, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .pause(let selector):
            outcome = setPaused(true, selector, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        case .resume(let selector):
            outcome = setPaused(false, selector, peer: peer, connection: connection, requestID: request.id, at: now, into: &effects)
        }
        if let outcome {
            effects.append(.reply(connection, request.id, outcome))
        }
    }

    private func hello(_ hello: HelloRequest, peer: Peer) -> Result<ReplyBody, SchedulerError> {
        guard hello.protocolVersion == ProtocolInfo.version else {
            return .failure(
                SchedulerError(
                    .unsupportedProtocol, "this daemon speaks protocol \(ProtocolInfo.version), not \(hello.protocolVersion)"))
        }
        return .success(
            .hello(
                HelloResult(
                    protocolVersion: ProtocolInfo.version, server: "reqd", version: ProtocolInfo.softwareVersion, uid: peer.uid)))
    }

    /// Validates a registration of a countdown, a poll or a group and starts it, or stages it
    /// until the store has it when it is durable.
    private mutating func register(
        _ spec: some JobSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let work: Job.Work
        do {
            work = try spec.work(at: now, limits: configuration)
            try checkCapacity(for: peer.uid, key: spec.options.key)
        } catch {
            return .failure(error)
        }
        let options = spec.options
        let job = newJob(
            owner: peer.uid, key: options.key, scope: options.scope, ephemeral: options.ephemeral,
            bindTo: options.bindConnection == true ? connection : nil, work: work, at: now)
        return admit(job, connection: connection, requestID: requestID, follow: options.follow ?? false, at: now, into: &effects)
    }

    /// Validates a schedule in its zone, plans its first elapse once it has an id, and starts it
    /// (or stages it until the store has it).
    private mutating func registerSchedule(
        _ spec: ScheduleSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        var schedule: Schedule
        do {
            schedule = try spec.validated(at: now, limits: configuration, zones: zones)
            try checkCapacity(for: peer.uid, key: spec.key)
        } catch {
            return .failure(error)
        }
        schedule.rule = scheduleRules.shared(schedule.rule)
        var job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .schedule(schedule), at: now)
        schedule.plan(after: now.wall, id: job.id, random: &random)
        job.work = .schedule(schedule)
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    /// `cancel`: ends what a selector names among the caller's active jobs, aborting their requests.
    private mutating func cancel(
        _ selector: JobSelector, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        if asksCluster(toCancel: selector, peer: peer, connection: connection, requestID: requestID, into: &effects) { return nil }
        return cancelHere(selector, peer: peer, connection: connection, requestID: requestID, alsoCancelled: [], at: now, into: &effects)
    }

    /// Cancels what a selector names in this daemon's table; the reply also lists `alsoCancelled`,
    /// the jobs the shared store cancelled on other daemons.
    mutating func cancelHere(
        _ selector: JobSelector, peer: Peer, connection: ConnectionID, requestID: RequestID, alsoCancelled: [String], at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        // Registrations still waiting for their commits came before this cancel: it ends them too.
        var staged = selector.job == nil
            ? commits.staged(key: selector.key, owner: peer.uid, scope: selector.scope, mayCancel: peer.mayAccess(ownerUID:))
            : stagedJob(selector, peer: peer).map { [$0.id] } ?? []
        var targets: [JobID]
        switch resolve(selector, peer: peer) {
        case .failure(let error) where staged.isEmpty || error.code != .unknownJob: return .failure(error)
        case .failure: targets = []
        case .success(let ids): targets = ids.filter { table[$0]?.isActive == true }
        }
        // A schedule's run in the same scope goes as the schedule's `abort` says, as when the
        // schedule alone is named; and a schedule ends before its run, which then starts nothing.
        let schedules = Set(targets.lazy.filter { $0.kind == .schedule })
        if !schedules.isEmpty {
            // Only each schedule's current run: an older one retried by hand is cancelled as any job.
            let runs = Set(schedules.compactMap { table.schedules[$0]?.machine.running })
            targets = targets.filter { $0.kind == .schedule } + targets.filter { $0.kind != .schedule && !runs.contains($0) }
            staged.removeAll(where: runs.contains)
        }
        var touchedDisk = !staged.isEmpty
        for id in staged { cancelStaged(id, at: now, into: &effects) }
        for id in targets {
            touchedDisk = touchedDisk || table[id]?.durable == true
            let run = selector.abort == true ? table.schedules[id]?.machine.running : nil
            finish(id, as: .cancelled, reason: .requested, replacedBy: nil, at: now, into: &effects)
            if let run {
                if commits.isStaged(run) {
                    cancelStaged(run, at: now, into: &effects)
                } else {
                    finish(run, as: .cancelled, reason: .requested, replacedBy: nil, at: now, into: &effects)
                }
            }
        }
        let result = Result<ReplyBody, SchedulerError>.success(
            .cancelled(CancelResult(cancelled: targets.map(\.rawValue) + staged.map(\.rawValue) + alsoCancelled)))
        guard touchedDisk else { return result }
        effects.append(.commitBarrier(commits.barrier(.reply(connection, requestID, result))))
        return nil
    }

    /// Cancels a job whose row is still being written: it ends as soon as its commit completes,
    /// sending nothing, and the cancel's own commit records that end, so that the cancel's reply
    /// never runs ahead of it on disk.
    private mutating func cancelStaged(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard var staged = commits.staged(id) else { return }
        commits.endWhenCommitted(id, .requested)
        staged.header.state = .cancelled
        staged.header.reason = .requested
        staged.header.endedAt = now.wall
        effects.append(.persist(.progress(id.rawValue, JobProgress(staged, at: now))))
    }

    /// The job a selector names by id while its row is still being written (a spawned job, whose
    /// id its parent's event has already told), if the caller may see it.
    func stagedJob(_ selector: JobSelector, peer: Peer) -> Job? {
        guard let raw = selector.job, let job = commits.staged(JobID(raw)), peer.mayAccess(ownerUID: job.owner) else { return nil }
        return job
    }

    /// The job ids a selector names for this caller: exactly one of job, key or scope.
    func resolve(_ selector: JobSelector, peer: Peer) -> Result<[JobID], SchedulerError> {
        let given = [selector.job != nil, selector.key != nil, selector.scope != nil].filter { $0 }.count
        guard given == 1 else {
            return .failure(
                SchedulerError(given == 0 ? .missingField : .conflictingFields, "give exactly one of 'job', 'key' or 'scope'"))
        }
        if let raw = selector.job {
            guard let header = table[JobID(raw)], peer.mayAccess(ownerUID: header.owner) else {
                return .failure(SchedulerError(.unknownJob, "no job '\(raw)'"))
            }
            return .success([header.id])
        }
        if let key = selector.key {
            guard let id = table.holder(ofKey: key, owner: peer.uid) else {
                return .failure(SchedulerError(.unknownJob, "no active job with key '\(key)'"))
            }
            return .success([id])
        }
        let ids = table.activeJobs(inScope: selector.scope ?? "").filter { id in
            table[id].map { peer.mayAccess(ownerUID: $0.owner) } ?? false
        }
        return .success(ids.sorted())
    }
}
