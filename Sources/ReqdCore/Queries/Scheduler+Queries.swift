import ReqdProtocol

/// The read-only operations: `status` and `list`.
extension Scheduler {
    /// A job by id: a live or ended one, or one waiting for its commit, such as the request job a
    /// countdown's expiry just started (its id is already in the `expired` event).
    func knownJob(_ id: JobID) -> Job? { job(id) ?? commits.staged(id) }

    /// `status`: the daemon summary, or one job in full.
    func status(_ request: StatusRequest, peer: Peer, at now: ClockReading) -> Result<ReplyBody, SchedulerError> {
        if let raw = request.job {
            guard let job = knownJob(JobID(raw)), peer.mayAccess(ownerUID: job.owner) else {
                return .failure(SchedulerError(.unknownJob, "no job '\(raw)'"))
            }
            var info = JobInfo(job, at: now)
            if request.attempts == true, let log = job.attemptLog { info.attempts = log.entries }
            return .success(.job(JobResult(job: info)))
        }
        return .success(
            .summary(
                DaemonSummary(
                    version: ProtocolInfo.softwareVersion, protocolVersion: ProtocolInfo.version,
                    pid: configuration.daemonPID, startedAt: startedAt.wall,
                    uptimeMs: now.instant.nanoseconds(since: startedAt.instant) / 1_000_000,
                    jobs: table.counts(visibleTo: peer), connections: subscriptions.count,
                    network: networkSummary(for: peer, at: now), limits: limitsSummary(for: peer), maxConnections: configuration.maxConnections,
                    targets: request.targets == true ? targetInfos(for: peer, at: now) : nil)))
    }

    /// `status`, whose reply waits for the store when it asks for an attempt log that only the
    /// store holds: a durable request job's, or an ended durable poll's.
    mutating func status(
        _ request: StatusRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        if let raw = request.job,
            asksCluster(
                about: raw, .status(job: raw, attempts: request.attempts == true), peer: peer, connection: connection, requestID: requestID,
                into: &effects)
        {
            return nil
        }
        let outcome = status(request, peer: peer, at: now)
        guard request.attempts == true, case .success(.job(let result)) = outcome,
            storeHoldsAttempts(durable: result.job.durable, kind: result.job.kind, active: result.job.state == .active)
        else { return outcome }
        effects.append(.replyWithStoredAttempts(connection, requestID, result.job))
        return nil
    }

    /// `list`: a page of the caller's jobs that match every filter, oldest first, from the cursor on.
    ///
    /// Answered now when one slice covers it and no slice was walked in this turn yet; otherwise
    /// the rest waits for later turns (`continueLists`), and the reply follows.
    mutating func list(
        _ filter: ListRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let limit = filter.limit ?? configuration.defaultListLimit
        guard limit > 0, limit <= configuration.maxListLimit else {
            return .failure(SchedulerError(.badField, "'limit' must be between 1 and \(configuration.maxListLimit)"))
        }
        var cursor: ListIndex.Entry?
        if let after = filter.after {
            guard let entry = ListCursor.entry(after) else {
                return .failure(SchedulerError(.badField, "'after' must be a cursor a list gave as 'next'"))
            }
            cursor = entry
        }
        if configuration.clustered {
            // The jobs other daemons hold join the page from the store, a sorted run of their own.
            effects.append(.askCluster(ClusterQuery(connection: connection, requestID: requestID, uid: peer.uid, operation: .list(filter, limit: limit))))
            return nil
        }
        return list(filter, limit: limit, after: cursor, elsewhere: [], peer: peer, connection: connection, requestID: requestID, at: now, boundary: nil)
    }

    /// Starts a page of `list`, with `elsewhere`, the first jobs other daemons hold that it may
    /// show; the page goes no further than `boundary`, the last row the store read, when it has
    /// more after it.
    mutating func list(
        _ filter: ListRequest, limit: Int, after cursor: ListIndex.Entry?, elsewhere: [Job], peer: Peer, connection: ConnectionID,
        requestID: RequestID, at now: ClockReading, boundary: ListIndex.Entry?
    ) -> Result<ReplyBody, SchedulerError>? {
        var query = ListQuery(
            filter, limit: limit, after: cursor, owner: peer.uid == 0 ? nil : peer.uid, maxBytes: configuration.maxReplyBytes, connection: connection, requestID: requestID)
        query.join(elsewhere, boundary: boundary)
        if !listSliceWalked {
            listSliceWalked = true
            query.advance(in: table, at: now)
            if let result = query.result { return .success(.jobs(result)) }
        }
        lists.append(query)
        return nil
    }

    /// Walks the list whose turn it is one slice further, and answers it when it is done; the
    /// connections with lists in progress take turns (`ListTurns`).
    mutating func continueLists(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard !lists.isEmpty, !listSliceWalked, var query = lists.next() else { return }
        listSliceWalked = true
        query.advance(in: table, at: now)
        if let result = query.result {
            effects.append(.reply(query.connection, query.requestID, .success(.jobs(result))))
        } else {
            lists.putBack(query)
        }
    }

    /// The network part of the daemon summary, counting only the jobs `peer` may see.
    func networkSummary(for peer: Peer, at now: ClockReading) -> NetworkSummary {
        guard let since = network.offlineSince else { return NetworkSummary(state: .online) }
        let held = peer.uid == 0 ? network.heldJobs : network.heldJobs(ownedBy: peer.uid)
        return NetworkSummary(
            state: .offline, offlineSince: now.wall(at: since), heldJobs: held, unreachableTargets: network.targets.count)
    }
}
