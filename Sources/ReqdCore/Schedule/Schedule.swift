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
    /// Whether the rule's zone is the daemon's local zone, given by no name. It is stored so, and
    /// read back in the local zone of the daemon that reads it.
    public var followsLocalZone = false
    /// The next elapse the timer waits for, before its delay; nil once none is left.
    public var due: WallTime?
    /// The delay drawn for `due`.
    public var delay: Int64 = 0
    /// The last elapse handled, and how late (nanoseconds after its instant and delay).
    public var lastElapse: WallTime?
    public var lastLateBy: Int64?
    /// Elapses that started a run (or, without a request, that fired).
    public var runs = 0
    /// Elapses that came while a run was still going (`skip`, or `queue` with one already waiting).
    public var skipped = 0
    /// Elapses that passed while the daemon was down, the machine slept or the schedule was late.
    public var missed = 0
    /// The run in flight, the one started last, and how that one ended.
    public var running: JobID?
    public var lastRun: JobID?
    public var lastOutcome: JobState?
    /// Whether a run waits for the running one to end (`queue`).
    public var queued = false

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

    /// The next `count` elapses from `due` on, for `status`.
    public func upcoming(_ count: Int) -> [WallTime] {
        guard let due, !paused else { return [] }
        var found = [due]
        while found.count < count, let next = rule.next(after: found[found.count - 1]) { found.append(next) }
        return found
    }
}
