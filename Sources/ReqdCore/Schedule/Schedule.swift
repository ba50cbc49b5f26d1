import ReqdProtocol

/// A recurring job's state: when it next elapses, what each elapse starts, and what its runs did.
///
/// Each elapse is one entry in the timer heap, at most one per schedule. The elapse instants are
/// wall-clock times (the rule is a calendar's); the scheduler turns the next one into a
/// boot-time instant when it arms the timer, and again after a clock step. A run is a request
/// job of its own, started from `request`; a schedule without a request only tells its watchers
/// that it elapsed.
public struct Schedule: Sendable {
    public var rule: ScheduleRule
    public var overlap: ScheduleOverlap
    public var catchUp: ScheduleCatchUp
    /// Each elapse is delayed by up to this many nanoseconds (`--randomized-delay`).
    public var randomizedDelay: Int64
    /// Whether the delay is the same for every elapse, derived from the id (`--fixed-delay`).
    public var fixedDelay: Bool
    /// The request each elapse starts, with its retry policy; nil for elapse events only.
    public var request: Box<Delivery>?
    public var paused = false
    /// Whether the rule's zone is the daemon's local zone, given by no name: it moves with the
    /// local zone, and is stored so, to be read back in the local zone of the daemon that reads it.
    public var followsLocalZone = false
    /// The next elapse the timer waits for, before its delay; nil once none is left.
    public var due: WallTime?
    /// The delay drawn for `due`.
    public var delay: Int64 = 0
    /// What its elapses and runs have done; nil until the first elapse.
    var history: Box<ScheduleHistory>?

    public init(
        rule: ScheduleRule, overlap: ScheduleOverlap = .skip, catchUp: ScheduleCatchUp = .one, randomizedDelay: Int64 = 0,
        fixedDelay: Bool = false, request: Box<Delivery>? = nil
    ) {
        self.rule = rule
        self.overlap = overlap
        self.catchUp = catchUp
        self.randomizedDelay = randomizedDelay
        self.fixedDelay = fixedDelay
        self.request = request
    }

    public var lastElapse: WallTime? { history?.value.lastElapse }
    public var lastLateBy: Int64? { history?.value.lastLateBy }
    public var runs: Int { history?.value.runs ?? 0 }
    public var skipped: Int { history?.value.skipped ?? 0 }
    public var missed: Int { history?.value.missed ?? 0 }
    public var running: JobID? { history?.value.running }
    public var lastRun: JobID? { history?.value.lastRun }
    public var lastOutcome: JobState? { history?.value.lastOutcome }
    public var queued: Bool { history?.value.queued ?? false }

    /// Changes the history in one step: one allocation, however many fields change.
    mutating func updateHistory<R>(_ change: (inout ScheduleHistory) -> R) -> R {
        var value = history?.value ?? ScheduleHistory()
        let result = change(&value)
        history = Box(value)
        return result
    }

    /// The next `count` elapses from `due` on, for `status`.
    public func upcoming(_ count: Int) -> [WallTime] {
        guard let due, !paused else { return [] }
        var found = [due]
        while found.count < count, let next = rule.next(after: found[found.count - 1]) { found.append(next) }
        return found
    }
}
