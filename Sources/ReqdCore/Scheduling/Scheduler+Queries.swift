import ReqdProtocol

extension Scheduler {
    /// A job by id: a live or ended one, or one waiting for its commit, such as the request job a
    /// countdown's expiry just started (its id is already in the `expired` event).
    func knownJob(_ id: JobID) -> Job? { jobs[id] ?? staged[id] }

    /// The wire view of a job at `now`.
    func info(_ job: Job, at now: ClockReading) -> JobInfo {
        var view = JobInfo(
            id: job.id.rawValue, kind: job.kind, state: job.state, owner: job.owner, key: job.key, scope: job.scope,
            durable: job.durable, createdAt: job.createdAt, endedAt: job.endedAt, reason: job.reason,
            replacedBy: job.replacedBy?.rawValue)
        if let countdown = job.countdown {
            view.deadline = now.wall(at: countdown.deadline)
            view.tickMs = countdown.tick / 1_000_000
            if job.state == .active {
                view.remainingMs = Instant.roundedMilliseconds(max(0, countdown.deadline.nanoseconds(since: now.instant)))
            }
            view.lateByMs = countdown.lateBy.map { Double($0) / 1e6 }
            if let request = countdown.onExpire?.value.request {
                view.onExpire = OnExpireInfo(
                    method: request.method, url: request.url, headerNames: request.headers.map(\.name),
                    job: countdown.spawned?.rawValue)
            }
        }
        if let delivery = job.delivery {
            let active = job.state == .active
            view.request = RequestInfo(
                url: delivery.request.url, method: delivery.request.method, headerNames: delivery.request.headers.map(\.name),
                maxAttempts: delivery.maxAttempts, backoffMinMs: delivery.backoffMin / 1_000_000,
                backoffMaxMs: delivery.backoffMax / 1_000_000, attempts: Int(delivery.attempts),
                lastStatus: delivery.lastStatus, lastError: delivery.lastError, inFlight: active && delivery.inFlight,
                nextAttemptAt: active && !delivery.inFlight && !delivery.held ? now.wall(at: delivery.nextAttempt) : nil,
                parent: delivery.parent?.rawValue)
            if active && delivery.held { view.request?.held = true }
        }
        if let group = job.group { view.group = groupInfo(group) }
        if job.boundTo != nil { view.boundToConnection = true }
        if let poll = job.poll {
            view.poll = PollInfo(
                url: poll.request.url, method: poll.request.method, headerNames: poll.request.headers.map(\.name),
                everyMs: poll.every / 1_000_000, until: poll.condition.source,
                progressPointer: poll.progressPointer?.description, timeoutMs: poll.timeout.map { $0 / 1_000_000 },
                deadline: poll.deadline.map(now.wall(at:)), maxPolls: poll.maxPolls, maxFailures: poll.maxFailures,
                polls: poll.polls, failures: poll.failures, progress: poll.progress, lastStatus: poll.lastStatus,
                lastError: poll.lastError, inFlight: job.state == .active && poll.inFlight,
                nextPollAt: job.state == .active && !poll.inFlight ? now.wall(at: poll.nextStart) : nil)
        }
        view.result = job.result
        view.error = job.error
        return view
    }

    /// `status`: the daemon summary, or one job in full.
    func status(_ request: StatusRequest, peer: Peer, at now: ClockReading) -> Result<ReplyBody, SchedulerError> {
        if let raw = request.job {
            guard let job = knownJob(JobID(raw)), peer.mayAccess(ownerUID: job.owner) else {
                return .failure(SchedulerError(.unknownJob, "no job '\(raw)'"))
            }
            return .success(.job(JobResult(job: info(job, at: now))))
        }
        var byKind: [String: [String: Int]] = [:]
        for kind in JobKind.allCases {
            byKind[kind.rawValue] = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, 0) })
        }
        for (owner, kinds) in counts where peer.mayAccess(ownerUID: owner) {
            for (kind, states) in kinds {
                for (state, count) in states {
                    byKind[kind.rawValue, default: [:]][state.rawValue, default: 0] += count
                }
            }
        }
        return .success(
            .summary(
                DaemonSummary(
                    version: ProtocolInfo.softwareVersion, protocolVersion: ProtocolInfo.version,
                    pid: configuration.daemonPID, startedAt: startedAt.wall,
                    uptimeMs: now.instant.nanoseconds(since: startedAt.instant) / 1_000_000, jobs: byKind,
                    connections: connections.count, network: networkSummary(for: peer, at: now))))
    }

    /// `list`: the caller's jobs that match every filter, oldest first.
    func list(_ filter: ListRequest, peer: Peer, at now: ClockReading) -> Result<ReplyBody, SchedulerError> {
        let limit = filter.limit ?? 1000
        guard limit > 0, limit <= configuration.maxListLimit else {
            return .failure(SchedulerError(.badField, "'limit' must be between 1 and \(configuration.maxListLimit)"))
        }
        var matching = jobs.values.filter { job in
            peer.mayAccess(ownerUID: job.owner) && (filter.state.map { $0 == job.state } ?? true)
                && (filter.kind.map { $0 == job.kind } ?? true) && (filter.scope.map { $0 == job.scope } ?? true)
                && (filter.key.map { $0 == job.key } ?? true)
        }
        matching.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        let truncated = matching.count > limit
        return .success(
            .jobs(JobListResult(jobs: matching.prefix(limit).map { info($0, at: now) }, truncated: truncated)))
    }
}
