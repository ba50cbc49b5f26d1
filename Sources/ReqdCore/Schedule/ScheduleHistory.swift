import ReqdProtocol

/// What a schedule's elapses and runs have done so far: kept behind one pointer in `Schedule`,
/// since a million schedules' slots would otherwise each pay for it inline, and it changes only
/// when an elapse or a run happens.
public struct ScheduleHistory: Sendable, Hashable {
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

    public init() {}
}
