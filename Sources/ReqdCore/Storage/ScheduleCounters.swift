import ReqdProtocol

/// Where a stored schedule is: its pending elapse, its last one, and what its runs did.
public struct ScheduleCounters: Sendable, Hashable, Codable {
    public var due: WallTime?
    public var delayNanos: Int64
    public var lastElapse: WallTime?
    public var lastLateByNanos: Int64?
    public var runs: Int
    public var skipped: Int
    public var missed: Int
    public var running: String?
    public var lastRun: String?
    public var lastOutcome: JobState?
    public var queued: Bool
    public var paused: Bool

    enum CodingKeys: String, CodingKey {
        case due
        case delayNanos = "delay_ns"
        case lastElapse = "last_elapse"
        case lastLateByNanos = "last_late_by_ns"
        case runs, skipped, missed, running
        case lastRun = "last_run"
        case lastOutcome = "last_outcome"
        case queued, paused
    }
}

extension ScheduleCounters {
    init(_ schedule: Schedule) {
        self.init(
            due: schedule.due, delayNanos: schedule.delay, lastElapse: schedule.lastElapse, lastLateByNanos: schedule.lastLateBy,
            runs: schedule.runs, skipped: schedule.skipped, missed: schedule.missed, running: schedule.running?.rawValue,
            lastRun: schedule.lastRun?.rawValue, lastOutcome: schedule.lastOutcome, queued: schedule.queued, paused: schedule.paused)
    }
}
