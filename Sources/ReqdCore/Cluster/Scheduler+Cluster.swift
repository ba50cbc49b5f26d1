import ReqdProtocol

/// Requests about durable jobs another daemon holds, on a store that several daemons share: the
/// store answers what this daemon's table cannot, and the replies are made here.
extension Scheduler {
    /// Asks the shared store when `status`, `wait` or `watch` names a job this daemon does not
    /// know; false when the request is this daemon's to answer.
    mutating func asksCluster(
        about raw: String, _ operation: ClusterQuery.Operation, peer: Peer, connection: ConnectionID, requestID: RequestID,
        into effects: inout [SchedulerEffect]
    ) -> Bool {
        guard configuration.clustered, knownJob(JobID(raw)) == nil else { return false }
        effects.append(.askCluster(ClusterQuery(connection: connection, requestID: requestID, uid: peer.uid, operation: operation)))
        return true
    }

    /// Asks the shared store to cancel what `selector` names elsewhere: a job or a key this
    /// daemon does not hold, or a scope, whose jobs may be held anywhere. False when the cancel is
    /// this daemon's alone (or the selector is malformed, which it reports).
    mutating func asksCluster(
        toCancel selector: JobSelector, peer: Peer, connection: ConnectionID, requestID: RequestID, into effects: inout [SchedulerEffect]
    ) -> Bool {
        guard configuration.clustered, [selector.job, selector.key, selector.scope].compactMap({ $0 }).count == 1 else { return false }
        if let raw = selector.job, knownJob(JobID(raw)) != nil { return false }
        if let key = selector.key, table.holder(ofKey: key, owner: peer.uid) != nil { return false }
        effects.append(.askCluster(ClusterQuery(connection: connection, requestID: requestID, uid: peer.uid, operation: .cancel(selector))))
        return true
    }

    /// Replies to a request the shared store answered. What the store already did is finished
    /// here even when the caller has gone: a scope's cancel, a retry whose row this daemon took.
    mutating func clusterAnswered(_ query: ClusterQuery, _ answer: ClusterAnswer, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let connected = subscriptions.peer(of: query.connection)
        let peer = connected ?? Peer(uid: query.uid, pid: 0)
        let outcome: Result<ReplyBody, SchedulerError>?
        switch (query.operation, answer) {
        case (_, .unavailable(let reason)):
            outcome = .failure(SchedulerError(.storageUnavailable, reason))
        case (.status(let raw, let attempts), .found(let record)):
            outcome = job(raw, from: record, peer: peer, at: now).map { job in
                var info = JobInfo(job, at: now)
                if attempts { info.attempts = record?.attempts ?? [] }
                return .job(JobResult(job: info))
            }
        case (.wait(let raw), .found(let record)):
            guard connected != nil else { return }
            switch job(raw, from: record, peer: peer, at: now) {
            case .failure(let error):
                outcome = .failure(error)
            case .success(let job) where job.state != .active:
                outcome = .success(.job(JobResult(job: JobInfo(job, at: now))))
            case .success(let job):
                // The store tells this daemon when the job ends (`waitedJobEnded`).
                subscriptions.wait(for: job.id, connection: query.connection, request: query.requestID)
                outcome = nil
            }
        case (.watch(let raw), .found(let record)):
            guard connected != nil else { return }
            outcome = job(raw, from: record, peer: peer, at: now).map { job in
                // The holder streams the job's events here from when it hears of the watch (`eventElsewhere`).
                if job.state == .active { subscriptions.watch(job: job.id, connection: query.connection, tag: query.requestID) }
                return .watching(WatchResult(job: JobInfo(job, at: now), scope: nil, streaming: job.state == .active))
            }
        case (.retry(let raw), .retried(let record, let taken)):
            outcome = retried(raw, record, taken: taken, peer: peer, query: query, at: now, into: &effects)
        case (.list(let filter, let limit), .listed(let records, let more)):
            guard connected != nil else { return }
            // Each row passes the caller's view, as the store's filter already did.
            let jobs = records.compactMap { job(from: $0, visibleTo: peer, at: now) }
            // The page may not pass the last row read while the store has more, shown or not.
            let boundary = more ? records.last.map { ListIndex.Entry(createdAt: $0.createdAt.nanosecondsSinceEpoch, id: JobID($0.id)) } : nil
            outcome = list(
                filter, limit: limit, after: filter.after.flatMap(ListCursor.entry), elsewhere: jobs, peer: peer, connection: query.connection,
                requestID: query.requestID, at: now, boundary: boundary)
        case (.cancel(let selector), .cancelled(let ids, let found)):
            if selector.scope != nil {
                outcome = cancelHere(selector, peer: peer, connection: query.connection, requestID: query.requestID, alsoCancelled: ids, at: now, into: &effects)
            } else if found {
                outcome = .success(.cancelled(CancelResult(cancelled: ids)))
            } else {
                outcome = .failure(
                    SchedulerError(.unknownJob, selector.job.map { "no job '\($0)'" } ?? "no active job with key '\(selector.key ?? "")'"))
            }
        default:
            outcome = .failure(SchedulerError(.storageUnavailable, "the store gave an answer that does not fit the request"))
        }
        if let outcome, connected != nil { effects.append(.reply(query.connection, query.requestID, outcome)) }
    }

    /// A job's row that the store answered a `retry` with: taken, the job is restored here if it
    /// was another daemon's, and retried; not taken, the reply says why.
    private mutating func retried(
        _ raw: String, _ record: JobRecord?, taken: Bool, peer: Peer, query: ClusterQuery, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let id = JobID(raw)
        if table[id] == nil {
            switch job(raw, from: record, peer: peer, at: now) {
            case .failure(let error): return .failure(error)
            case .success(let job) where !taken:
                if case .failure(let error) = retryable(job.header, peer: peer) { return .failure(error) }
                return .failure(SchedulerError(.badField, "'\(raw)' cannot be retried while another active job holds its key '\(job.key ?? "")'; cancel that one first"))
            case .success:
                guard let record else { return nil }
                restore(RestoreChunk([record], expecting: 1, at: now, configuration: configuration, zones: zones), at: now, into: &effects)
                finishRestore(at: now, into: &effects)
            }
        } else if !taken {
            return .failure(SchedulerError(.badField, "'\(raw)' is no longer dead or failed, or another active job holds its key"))
        }
        let outcome = retryHere(RetryRequest(job: raw), peer: peer, connection: query.connection, requestID: query.requestID, at: now, into: &effects)
        if case .failure = outcome, let job = job(id), job.durable {
            // The store marked the row active for this retry: it is written back as it stays.
            persistProgress(of: job, at: now, into: &effects)
        }
        return outcome
    }

    /// Another daemon took the row of an ended job this one held, to retry it: this daemon forgets
    /// the job, and leaves the row to its new holder.
    mutating func takenElsewhere(_ id: JobID, into effects: inout [SchedulerEffect]) {
        guard let header = table[id], !header.isActive else { return }
        table.leaveRetention(id, endedIn: header.state)
        forgetDedupe(id)
        forget(id, persisting: false, into: &effects)
    }

    /// Another daemon no longer watches a job this one holds: its events stop going there.
    mutating func unwatchedElsewhere(_ id: JobID, by daemon: String) {
        subscriptions.unwatch(job: id, fromDaemon: daemon)
    }

    /// Another daemon asks for the events of a job this one holds, for its watchers.
    mutating func watchedElsewhere(_ id: JobID, by daemon: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let header = table[id], header.isActive, header.durable else { return }
        subscriptions.watch(job: id, fromDaemon: daemon)
        // A watched countdown ticks.
        if header.kind == .countdown { advance(id, at: now, into: &effects) }
    }

    /// An event of a job another daemon holds, for this daemon's watchers of it; the last one
    /// ends their stream.
    mutating func eventElsewhere(_ event: JobEvent, into effects: inout [SchedulerEffect]) {
        let id = JobID(event.job)
        guard table[id] == nil else { return }
        let recipients = subscriptions.recipients(ofJobElsewhere: id).filter { $0.connection != .cluster }
        guard !recipients.isEmpty else {
            // No one here watches it any more: its holder stops sending.
            if !event.type.isTerminal { effects.append(.unwatchElsewhere(id)) }
            return
        }
        effects.append(.deliver(event, to: recipients))
        if event.type.isTerminal { subscriptions.streamEnded(id) }
    }

    /// A job another daemon held ended, and this daemon waits for it: its waiters get their
    /// replies, and a stream its holder did not end (a holder that died) ends with the row's end.
    mutating func waitedJobEnded(_ record: JobRecord, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let id = JobID(record.id)
        guard table[id] == nil, let job = job(from: record, visibleTo: nil, at: now), job.state != .active
        else { return }
        let watchers = subscriptions.recipients(ofJobElsewhere: id).filter { $0.connection != .cluster }
        if !watchers.isEmpty {
            effects.append(.deliver(JobEvent(endOf: job, at: now), to: watchers))
        }
        let waiting = subscriptions.jobEnded(elsewhere: id)
        guard !waiting.isEmpty else { return }
        let view = JobInfo(job, at: now)
        for (connection, request) in waiting {
            effects.append(.reply(connection, request, .success(.job(JobResult(job: view)))))
        }
    }

    /// A job another daemon held ended, and its row went before it could be read: its waiters here
    /// get `unknown_job` rather than no reply, and its stream here is over.
    mutating func waitedJobGone(_ id: JobID, into effects: inout [SchedulerEffect]) {
        guard table[id] == nil else { return }
        for (connection, request) in subscriptions.jobEnded(elsewhere: id) {
            effects.append(
                .reply(connection, request, .failure(SchedulerError(.unknownJob, "job '\(id)' ended and was forgotten before its end could be read"))))
        }
    }

    /// The job a row read from the shared store holds, when the caller may see it.
    private func job(_ raw: String, from record: JobRecord?, peer: Peer, at now: ClockReading) -> Result<Job, SchedulerError> {
        guard let record, record.id == raw, let job = job(from: record, visibleTo: peer, at: now) else {
            return .failure(SchedulerError(.unknownJob, "no job '\(raw)'"))
        }
        return .success(job)
    }

    /// The job a row read from the shared store holds, as a restore makes it; nil for a row `peer`
    /// may not see (when given) or that reqd did not write.
    private func job(from record: JobRecord, visibleTo peer: Peer?, at now: ClockReading) -> Job? {
        guard peer?.mayAccess(ownerUID: record.owner) ?? true, JobID(record.id).kind == record.kind else { return nil }
        return Job(record, at: now, maxPollBackoff: configuration.maxPollBackoffNanos, zones: zones)
    }
}
