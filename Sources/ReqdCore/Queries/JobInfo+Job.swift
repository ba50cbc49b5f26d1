import ReqdProtocol

extension JobInfo {
    /// The wire view of a job at `now`: its header, and its kind's settings and counters.
    /// `brief` leaves out what can be large: a group's members and the kept answer's body.
    init(_ job: Job, at now: ClockReading, brief: Bool = false) {
        self.init(
            id: job.id.rawValue, kind: job.kind, state: job.state, owner: job.owner, key: job.key, scope: job.scope,
            durable: job.durable, createdAt: job.createdAt, endedAt: job.endedAt, reason: job.reason,
            replacedBy: job.replacedBy?.rawValue)
        let active = job.state == .active
        switch job.work {
        case .countdown(let countdown):
            deadline = now.wall(at: countdown.deadline)
            tickMs = countdown.tick / 1_000_000
            if active { remainingMs = countdown.remainingMs(at: now.instant) }
            lateByMs = countdown.lateBy.map { Double($0) / 1e6 }
            if let request = countdown.onExpire?.value.request {
                onExpire = OnExpireInfo(
                    method: request.method, url: request.url, headerNames: request.headers.map(\.name),
                    job: countdown.spawned?.rawValue)
            }
        case .poll(let poll):
            self.poll = PollInfo(
                url: poll.request.url, method: poll.request.method, headerNames: poll.request.headers.map(\.name),
                everyMs: poll.every / 1_000_000, until: poll.condition.source,
                progressPointer: poll.progressPointer?.description, timeoutMs: poll.timeout.map { $0 / 1_000_000 },
                deadline: poll.deadline.map(now.wall(at:)), maxPolls: poll.maxPolls, maxFailures: poll.maxFailures,
                polls: poll.polls, failures: poll.failures, progress: poll.progress, lastStatus: poll.lastStatus,
                lastError: poll.lastError, inFlight: active && poll.inFlight,
                nextPollAt: active && !poll.inFlight ? now.wall(at: poll.nextStart) : nil)
        case .request(let delivery):
            request = RequestInfo(
                url: delivery.request.url, method: delivery.request.method, headerNames: delivery.request.sentHeaderNames,
                maxAttempts: delivery.maxAttempts, backoffMinMs: delivery.backoffMin / 1_000_000,
                backoffMaxMs: delivery.backoffMax / 1_000_000, attempts: Int(delivery.attempts),
                lastStatus: delivery.lastStatus, lastError: delivery.lastError, inFlight: active && delivery.inFlight,
                nextAttemptAt: active && !delivery.inFlight && !delivery.held ? now.wall(at: delivery.nextAttempt) : nil,
                parent: delivery.parent?.rawValue)
            if active && delivery.held { request?.held = true }
        case .group(let group):
            self.group = GroupInfo(group, brief: brief)
        case .schedule(let schedule):
            self.schedule = ScheduleInfo(schedule, active: active)
        }
        if job.boundTo != nil { boundToConnection = true }
        result = brief ? job.result.map { HTTPResult(status: $0.status, headers: nil, body: "", truncated: !$0.body.isEmpty) } : job.result
        error = job.error
    }
}
