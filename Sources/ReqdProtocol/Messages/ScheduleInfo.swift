/// A schedule's rule, its next elapses, and what its runs did, as `status JOB_ID` shows it.
public struct ScheduleInfo: Codable, Sendable, Hashable {
    /// The rule in normal form: the calendar or cron expression, or `every 5m`.
    public var expression: String
    /// The zone elapses are computed in; nil for an interval.
    public var zone: String?
    public var overlap: ScheduleOverlap
    public var catchUp: ScheduleCatchUp
    public var randomizedDelayMs: Int64?
    public var paused: Bool
    /// The next three elapses (fewer when the rule runs out), before any random delay.
    public var next: [WallTime]
    public var lastElapse: WallTime?
    /// How late the last elapse was handled, in milliseconds (fractional).
    public var lastLateByMs: Double?
    /// Elapses that started a run (or fired, without a request), that came while one was
    /// going, and that passed during downtime or a suspend without a run of their own.
    public var runs: Int
    public var skipped: Int
    public var missed: Int
    /// The run's request job still going, the last one started, and how that one ended.
    public var running: String?
    public var lastRun: String?
    public var lastOutcome: JobState?
    /// What each elapse sends (header names only); nil for elapse events only.
    public var request: OnExpireInfo?

    public init(
        expression: String, zone: String?, overlap: ScheduleOverlap, catchUp: ScheduleCatchUp, randomizedDelayMs: Int64?,
        paused: Bool, next: [WallTime], lastElapse: WallTime?, lastLateByMs: Double?, runs: Int, skipped: Int, missed: Int,
        running: String?, lastRun: String?, lastOutcome: JobState?, request: OnExpireInfo?
    ) {
        self.expression = expression
        self.zone = zone
        self.overlap = overlap
        self.catchUp = catchUp
        self.randomizedDelayMs = randomizedDelayMs
        self.paused = paused
        self.next = next
        self.lastElapse = lastElapse
        self.lastLateByMs = lastLateByMs
        self.runs = runs
        self.skipped = skipped
        self.missed = missed
        self.running = running
        self.lastRun = lastRun
        self.lastOutcome = lastOutcome
        self.request = request
    }

    enum CodingKeys: String, CodingKey {
        case expression, zone, overlap
        case catchUp = "catch_up"
        case randomizedDelayMs = "randomized_delay_ms"
        case paused, next
        case lastElapse = "last_elapse"
        case lastLateByMs = "last_late_by_ms"
        case runs, skipped, missed, running
        case lastRun = "last_run"
        case lastOutcome = "last_outcome"
        case request
    }
}
