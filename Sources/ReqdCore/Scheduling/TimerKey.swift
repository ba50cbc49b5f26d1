/// What waits in the scheduler's timer heap: one entry per job that needs time, and the others.
enum TimerKey: Hashable, Sendable {
    /// A job's next need: a countdown's tick or expiry, a poll's next request or time limit, a
    /// request job's next attempt or request timeout, a group's time limit or member retry, a
    /// dead letter's end.
    case job(JobID)
    /// The end of a request job's dedupe window.
    case dedupe(JobID)
    /// The next probe round of unreachable targets.
    case probe
    /// The next slice of a pass that shrinks tables (`ShrinkPass`).
    case shrink
    /// The next turn's share of ended jobs to forget, when more were due than one turn forgets.
    case retention
    /// The earliest instant a target with jobs waiting has a token again, or ends its pause
    /// (`TargetLimiter`).
    case targets
}

extension TimerKey: ShardKey {
    /// A job's own id picks the shard; the others share one.
    var shardBits: UInt {
        switch self {
        case .job(let id), .dedupe(let id): id.shardBits
        case .probe, .shrink, .retention, .targets: 0
        }
    }
}
