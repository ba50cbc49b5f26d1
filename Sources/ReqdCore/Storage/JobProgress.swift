import ReqdProtocol

/// The part of a job's row that changes after the job is written: its state, its end, its answer
/// and its kind's counters.
///
/// A job's settings are written once, with its insert. What happens to it afterwards (a retry,
/// its end, a dead letter sent again) updates only these columns, so the store never encodes the
/// settings again and never rewrites the row in full.
public struct JobProgress: Sendable, Hashable {
    /// A kind's counters, as the row keeps them.
    public enum Counters: Sendable, Hashable {
        case none
        case poll(PollCounters)
        case delivery(DeliveryCounters)
        case group(GroupCounters)
        case schedule(ScheduleCounters)
    }

    public var state: JobState
    public var endedAt: WallTime?
    public var reason: EventReason?
    public var replacedBy: String?
    public var lateByNanos: Int64?
    /// The answer that ended the job.
    public var result: HTTPResult?
    /// Why the job failed or timed out.
    public var error: String?
    /// The request job a countdown's expiry started.
    public var spawned: String?
    public var counters: Counters

    public init(
        state: JobState, endedAt: WallTime?, reason: EventReason?, replacedBy: String?, lateByNanos: Int64?,
        result: HTTPResult?, error: String?, spawned: String?, counters: Counters
    ) {
        self.state = state
        self.endedAt = endedAt
        self.reason = reason
        self.replacedBy = replacedBy
        self.lateByNanos = lateByNanos
        self.result = result
        self.error = error
        self.spawned = spawned
        self.counters = counters
    }
}

extension JobProgress {
    /// A job's changing columns now, with its boot-time instants projected onto the wall clock.
    init(_ job: Job, at now: ClockReading) {
        let counters: Counters =
            if let poll = job.poll {
                .poll(PollCounters(poll, at: now))
            } else if let delivery = job.delivery {
                .delivery(DeliveryCounters(delivery, at: now))
            } else if let group = job.group {
                .group(GroupCounters(group))
            } else if let schedule = job.schedule {
                .schedule(ScheduleCounters(schedule))
            } else {
                .none
            }
        self.init(
            state: job.state, endedAt: job.endedAt, reason: job.reason, replacedBy: job.replacedBy?.rawValue,
            lateByNanos: job.countdown?.lateBy, result: job.result, error: job.error,
            spawned: job.countdown?.spawned?.rawValue, counters: counters)
    }
}
