import ReqdProtocol

/// The operations that subscribe a connection (`watch`, `wait`) and what a closed connection ends.
extension Scheduler {
    /// `watch`: streams a job's or a scope's events to a connection.
    mutating func watch(
        _ selector: JobSelector, peer: Peer, connection: ConnectionID, tag: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        if let raw = selector.job, selector.key == nil, selector.scope == nil,
            asksCluster(about: raw, .watch(job: raw), peer: peer, connection: connection, requestID: tag, into: &effects)
        {
            return nil
        }
        if let scope = selector.scope, selector.job == nil, selector.key == nil {
            do throws(SchedulerError) { try configuration.validateName("scope", scope) } catch { return .failure(error) }
            // A watched countdown ticks: those this watch is the first to see start ticking now.
            let key = ScopeWatch(scope: scope, owner: peer.uid == 0 ? nil : peer.uid)
            guard subscriptions.mayWatch(scope: key, connection: connection) else { return .failure(Self.tooManyWatches) }
            let ticking = subscriptions.isWatched(key) || subscriptions.isWatched(ScopeWatch(scope: scope, owner: nil))
            subscriptions.watch(scope: scope, connection: connection, tag: tag, peer: peer)
            if !ticking {
                for id in table.activeJobs(inScope: scope) {
                    guard let header = table[id], header.kind == .countdown, peer.mayAccess(ownerUID: header.owner) else { continue }
                    advance(id, at: now, into: &effects)
                }
            }
            return .success(.watching(WatchResult(job: nil, scope: scope, streaming: true)))
        }
        let ids: [JobID]
        switch resolve(selector, peer: peer) {
        case .failure(let error):
            // A spawned job still being written (its parent's event named it) streams from when its
            // commit completes, which starts it even when the write fails.
            guard error.code == .unknownJob, let staged = stagedJob(selector, peer: peer), staged.delivery?.parent != nil else {
                return .failure(error)
            }
            guard subscriptions.mayWatch(job: staged.id, connection: connection) else { return .failure(Self.tooManyWatches) }
            subscriptions.watch(job: staged.id, connection: connection, tag: tag)
            return .success(.watching(WatchResult(job: JobInfo(staged, at: now), scope: nil, streaming: true)))
        case .success(let found): ids = found
        }
        guard let id = ids.first, let job = job(id) else {
            return .failure(SchedulerError(.unknownJob, "no such job"))
        }
        guard job.state == .active else {
            return .success(.watching(WatchResult(job: JobInfo(job, at: now), scope: nil, streaming: false)))
        }
        guard subscriptions.mayWatch(job: id, connection: connection) else { return .failure(Self.tooManyWatches) }
        subscriptions.watch(job: id, connection: connection, tag: tag)
        if job.kind == .countdown { advance(id, at: now, into: &effects) }
        return .success(.watching(WatchResult(job: JobInfo(job, at: now), scope: nil, streaming: true)))
    }

    /// The refusal of a watch past what one connection may hold (`Subscriptions.maxWatchesOfOne`
    /// and the others).
    static let tooManyWatches = SchedulerError(
        .quotaExceeded,
        "this connection holds as many watches as it may: \(Subscriptions.maxWatchesOfOne) of one job or scope, "
            + "\(Subscriptions.maxWatchedJobs) jobs' and \(Subscriptions.maxWatchedScopes) scopes' in all; unwatch some, or watch on another connection")

    /// `wait`: replies once the job has ended; at once when it already has.
    mutating func wait(
        _ request: WaitRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        if asksCluster(about: request.job, .wait(job: request.job), peer: peer, connection: connection, requestID: requestID, into: &effects) {
            return nil
        }
        guard let job = knownJob(JobID(request.job)), peer.mayAccess(ownerUID: job.owner) else {
            return .failure(SchedulerError(.unknownJob, "no job '\(request.job)'"))
        }
        guard job.state == .active else { return .success(.job(JobResult(job: JobInfo(job, at: now)))) }
        subscriptions.wait(for: job.id, connection: connection, request: requestID)
        return nil
    }

    /// Forgets a closed connection's watches, waits and lists in progress, and cancels the jobs bound to it.
    mutating func closeConnection(_ id: ConnectionID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        lists.removeAll(of: id)
        shrinking.removed()
        for job in subscriptions.close(id) {
            finish(job, as: .cancelled, reason: .connectionClosed, replacedBy: nil, at: now, into: &effects)
        }
    }
}
