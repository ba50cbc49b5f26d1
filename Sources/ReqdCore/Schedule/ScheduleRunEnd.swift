/// What a run's end means to its schedule.
enum ScheduleRunEnd: Sendable, Hashable {
    /// It was not the schedule's run in flight (one a `replace` already let go): only its outcome is noted.
    case notCurrent
    /// The run in flight ended.
    case ended
    /// The run in flight ended and a queued run starts now.
    case startQueued
}
