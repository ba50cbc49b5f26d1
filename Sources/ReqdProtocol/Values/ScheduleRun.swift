/// What a schedule's elapse came to, in its `elapsed` event.
public enum ScheduleRun: String, Codable, Sendable, Hashable {
    /// A run started: its request job is in the event's `spawned`.
    case started
    /// A run was still going (`overlap: skip`, or `queue` with one already waiting).
    case skipped
    /// A run was still going and this one waits for it (`overlap: queue`).
    case queued
    /// The elapses passed while the daemon was down or the machine slept, with `catch_up: none`.
    case missed
    /// The schedule has no request: the event is all there is.
    case none
}
