import ReqdProtocol

extension JobEvent {
    /// An event of a job: who the job is, and its kind's counters as they stand.
    init(_ type: JobEventType, of job: Job, at now: ClockReading) {
        self.init(
            type: type, job: job.id.rawValue, kind: job.kind, key: job.key, scope: job.scope, owner: job.owner,
            at: now.wall, reason: job.reason, replacedBy: job.replacedBy?.rawValue)
        switch job.work {
        case .countdown(let countdown):
            lateByMs = countdown.lateBy.map { Double($0) / 1e6 }
            spawned = countdown.spawned?.rawValue
        case .poll(let poll):
            polls = poll.polls
            failures = poll.failures
            progress = poll.progress
        case .request(let delivery):
            attempt = Int(delivery.attempts)
        case .group(let group):
            done = group.done
            total = group.members.count
            failures = group.failures
            spawned = group.spawned?.rawValue
        case .schedule:
            break
        }
    }

    /// The event that ends an ended job's stream: the state's own, or `completed` for a group or
    /// a schedule that did not end cancelled.
    init(endOf job: Job, at now: ClockReading) {
        self.init(JobEventType(ending: job.state) ?? .cancelled, of: job, at: now)
        if job.kind == .group || job.kind == .schedule, job.state != .cancelled {
            // A group completes once, with `completed`; a cancelled one never does. So does a
            // schedule whose rule has no elapse left.
            type = .completed
            state = job.state
        }
        error = job.error
        status = job.result?.status
    }
}
