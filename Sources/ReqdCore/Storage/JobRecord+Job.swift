import ReqdProtocol

extension JobRecord {
    /// The store's row for a job, with its boot-time instants projected onto the wall clock.
    init(_ job: Job, at now: ClockReading) {
        let countdown = job.countdown
        self.init(
            id: job.id.rawValue, owner: job.owner, kind: job.kind, state: job.state, key: job.key, scope: job.scope,
            createdAt: job.createdAt, endedAt: job.endedAt, reason: job.reason, replacedBy: job.replacedBy?.rawValue,
            deadline: countdown.map { now.wall(at: $0.deadline) }, tickNanos: countdown?.tick, lateByNanos: countdown?.lateBy,
            detail: JobDetail(
                poll: job.poll.map { PollRecord($0, at: now) }, request: job.delivery.map { DeliveryRecord($0, of: job.id, at: now) },
                group: job.group.map { GroupRecord($0, at: now) }, schedule: job.schedule.map { ScheduleRecord($0) },
                onExpire: countdown?.onExpire.map { DeliverySettings($0.value) }, spawned: countdown?.spawned?.rawValue,
                result: job.result, error: job.error))
    }
}
