import ReqdProtocol

extension Scheduler {
    /// Whoever should see an event of this job: its watchers and the watchers of its scope.
    func recipients(of job: Job) -> [Recipient] {
        var result: [Recipient] = []
        for watcher in jobWatchers[job.id] ?? [] {
            result.append(Recipient(connection: watcher.connection, watch: watcher.tag))
        }
        if let scope = job.scope {
            for watcher in scopeWatchers[scope] ?? [] where watcher.ownerFilter.map({ $0 == job.owner }) ?? true {
                result.append(Recipient(connection: watcher.connection, watch: watcher.tag))
            }
        }
        return result
    }

    /// Whether anyone watches this job; unwatched countdowns need no ticks, only their expiry.
    func isWatched(_ job: Job) -> Bool {
        if jobWatchers[job.id]?.isEmpty == false { return true }
        guard let scope = job.scope, let watchers = scopeWatchers[scope] else { return false }
        return watchers.contains { $0.ownerFilter.map { $0 == job.owner } ?? true }
    }

    /// Starts streaming a job's or a scope's events to a connection.
    mutating func watch(
        _ selector: JobSelector, peer: Peer, connection: ConnectionID, tag: RequestID, at now: ClockReading
    ) -> Result<ReplyBody, SchedulerError> {
        if let scope = selector.scope, selector.job == nil, selector.key == nil {
            do throws(SchedulerError) { try validateName("scope", scope) } catch { return .failure(error) }
            let watcher = Watcher(connection: connection, tag: tag, ownerFilter: peer.uid == 0 ? nil : peer.uid)
            scopeWatchers[scope, default: []].append(watcher)
            connections[connection]?.watchedScopes[scope, default: []].append(tag)
            for id in activeByScope[scope] ?? [] {
                if let job = jobs[id] { scheduleCountdown(job, at: now.instant) }
            }
            return .success(.watching(WatchResult(job: nil, scope: scope, streaming: true)))
        }
        let ids: [JobID]
        switch resolve(selector, peer: peer) {
        case .failure(let error): return .failure(error)
        case .success(let found): ids = found
        }
        guard let id = ids.first, let job = jobs[id] else {
            return .failure(SchedulerError(.unknownJob, "no such job"))
        }
        guard job.state == .active else {
            return .success(.watching(WatchResult(job: info(job, at: now), scope: nil, streaming: false)))
        }
        addJobWatcher(id, connection: connection, tag: tag)
        scheduleCountdown(job, at: now.instant)
        return .success(.watching(WatchResult(job: info(job, at: now), scope: nil, streaming: true)))
    }

    mutating func addJobWatcher(_ id: JobID, connection: ConnectionID, tag: RequestID) {
        jobWatchers[id, default: []].append(Watcher(connection: connection, tag: tag, ownerFilter: nil))
        connections[connection]?.watchedJobs[id, default: []].append(tag)
    }

    /// Drops a job's watchers once it has ended; its stream is over.
    mutating func endJobWatches(_ id: JobID) {
        guard let watchers = jobWatchers.removeValue(forKey: id) else { return }
        for watcher in watchers {
            connections[watcher.connection]?.watchedJobs[id] = nil
        }
    }

    /// Removes a connection's subscriptions started by the request `tag`; returns how many.
    mutating func removeWatches(connection: ConnectionID, tag: RequestID) -> Int {
        guard var state = connections[connection] else { return 0 }
        let removed =
            Self.detach(connection, tag: tag, from: &jobWatchers, subscriptions: &state.watchedJobs)
            + Self.detach(connection, tag: tag, from: &scopeWatchers, subscriptions: &state.watchedScopes)
        connections[connection] = state
        return removed
    }

    /// Forgets a closed connection: its watches and its waits.
    mutating func closeConnection(_ id: ConnectionID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard var state = connections.removeValue(forKey: id) else { return }
        for jobID in state.boundJobs.sorted() {
            guard let job = jobs[jobID], job.state == .active else { continue }
            finish(job, as: .cancelled, reason: .connectionClosed, replacedBy: nil, at: now, into: &effects)
        }
        _ = Self.detach(id, tag: nil, from: &jobWatchers, subscriptions: &state.watchedJobs)
        _ = Self.detach(id, tag: nil, from: &scopeWatchers, subscriptions: &state.watchedScopes)
        for jobID in state.waits.keys {
            waiters[jobID]?.removeAll { $0.0 == id }
            if waiters[jobID]?.isEmpty == true { waiters[jobID] = nil }
        }
    }

    /// Removes a connection's watchers from one index (a job's or a scope's): those started by
    /// `tag`, or all of them when `tag` is nil. Returns how many subscriptions ended.
    private static func detach<Key: Hashable>(
        _ connection: ConnectionID, tag: RequestID?, from watchers: inout [Key: [Watcher]],
        subscriptions: inout [Key: [RequestID]]
    ) -> Int {
        var removed = 0
        for (key, tags) in subscriptions where tag.map(tags.contains) ?? true {
            watchers[key]?.removeAll { $0.connection == connection && (tag == nil || $0.tag == tag) }
            if watchers[key]?.isEmpty == true { watchers[key] = nil }
            if let tag {
                subscriptions[key]?.removeAll { $0 == tag }
                if subscriptions[key]?.isEmpty == true { subscriptions[key] = nil }
            } else {
                subscriptions[key] = nil
            }
            removed += 1
        }
        return removed
    }

    /// Replies once the job has ended; at once when it already has.
    mutating func wait(
        _ request: WaitRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading
    ) -> Result<ReplyBody, SchedulerError>? {
        guard let job = knownJob(JobID(request.job)), peer.mayAccess(ownerUID: job.owner) else {
            return .failure(SchedulerError(.unknownJob, "no job '\(request.job)'"))
        }
        guard job.state == .active else { return .success(.job(JobResult(job: info(job, at: now)))) }
        waiters[job.id, default: []].append((connection, requestID))
        connections[connection]?.waits[job.id, default: 0] += 1
        return nil
    }
}
