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
            return .success(.job(JobResult(job: JobInfo(job, at: now))))
        }
        return .success(
            .summary(
                DaemonSummary(
                    version: ProtocolInfo.softwareVersion, protocolVersion: ProtocolInfo.version,
                    pid: configuration.daemonPID, startedAt: startedAt.wall,
                    uptimeMs: now.instant.nanoseconds(since: startedAt.instant) / 1_000_000,
                    jobs: table.counts(visibleTo: peer), connections: subscriptions.count,
                    network: networkSummary(for: peer, at: now))))
    }

    /// `list`: the caller's jobs that match every filter, oldest first.
    func list(_ filter: ListRequest, peer: Peer, at now: ClockReading) -> Result<ReplyBody, SchedulerError> {
        let limit = filter.limit ?? 1000
        guard limit > 0, limit <= configuration.maxListLimit else {
            return .failure(SchedulerError(.badField, "'limit' must be between 1 and \(configuration.maxListLimit)"))
        }
        var matching = table.headers { job in
            peer.mayAccess(ownerUID: job.owner) && (filter.state.map { $0 == job.state } ?? true)
                && (filter.kind.map { $0 == job.kind } ?? true) && (filter.scope.map { $0 == job.scope } ?? true)
                && (filter.key.map { $0 == job.key } ?? true)
        }
        matching.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        let truncated = matching.count > limit
        let views = matching.prefix(limit).compactMap { header in job(header.id).map { JobInfo($0, at: now) } }
        return .success(.jobs(JobListResult(jobs: views, truncated: truncated)))
    }

    /// The network part of the daemon summary, counting only the jobs `peer` may see.
    func networkSummary(for peer: Peer, at now: ClockReading) -> NetworkSummary {
        guard let since = network.offlineSince else { return NetworkSummary(state: .online) }
        let held = network.allJobs.filter { table[$0].map { peer.mayAccess(ownerUID: $0.owner) } ?? false }.count
        return NetworkSummary(
            state: .offline, offlineSince: now.wall(at: since), heldJobs: held, unreachableTargets: network.targets.count)
    }
}
