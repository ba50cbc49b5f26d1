/// What happened to a job, as streamed to watchers and written to the log.
public enum JobEventType: String, Codable, Sendable, Hashable {
    /// The job was accepted (and, when durable, written to disk).
    case registered
    /// A countdown crossed a whole multiple of its tick.
    case tick
    /// A countdown reached its deadline. Terminal.
    case expired
    /// The job was cancelled; `reason` says why. Terminal.
    case cancelled
    /// A poll was answered (or failed) without moving the progress forward.
    case polled
    /// A poll moved the progress forward; `progress` holds the new value.
    case progress
    /// A request job's attempt failed and another one is planned; `attempt`, `status` or `error` say which and why.
    case retrying
    /// A request job's attempt found its target unreachable (no route, or DNS failing for now):
    /// the attempt does not count, and the job waits until the target answers again. `error` says why.
    case held
    /// A poll job's condition held, or a request job was answered. Terminal.
    case succeeded
    /// A poll job failed too often in a row, or a request job ran out of attempts or was refused; `error` says why. Terminal.
    case failed
    /// A poll job ran out of time or polls. Terminal.
    case timedOut = "timed_out"
    /// A request job used up its attempts and was dead-lettered; `error` says why. Terminal (until `retry`).
    case dead
    /// A group member ended; `member`, `member_state`, `done`, `total` and `failures` say which and how far. (Watchers only.)
    case member
    /// A group ended: every member has ended, or its time limit ran out. `state` says how. A
    /// schedule whose rule has no elapse left ended (`completed`). Terminal.
    case completed
    /// A schedule elapsed; `run` says what came of it (`started`, with the request job in
    /// `spawned`; `skipped`; `queued`; `missed`; `none` without a request), `late_by_ms` how late,
    /// and `missed` how many elapses before it passed unrun.
    case elapsed
    /// A schedule was paused, or resumed.
    case paused
    case resumed

    /// Whether this event ends the job's stream.
    public var isTerminal: Bool {
        switch self {
        case .expired, .cancelled, .succeeded, .failed, .timedOut, .completed, .dead: true
        case .registered, .tick, .polled, .progress, .retrying, .held, .member, .elapsed, .paused, .resumed: false
        }
    }

    /// The terminal event for a job that ended in `state`.
    public init?(ending state: JobState) {
        switch state {
        case .active: return nil
        case .expired: self = .expired
        case .cancelled: self = .cancelled
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .timedOut: self = .timedOut
        case .dead: self = .dead
        case .completed: self = .completed
        }
    }
}
