/// Where a job is in its life, as named on the wire.
public enum JobState: String, Codable, Sendable, CaseIterable, Hashable {
    /// Registered and running.
    case active
    /// A countdown that reached its deadline.
    case expired
    /// A poll job whose condition held, a request job answered below 400, a group whose members all succeeded.
    case succeeded
    /// A poll job that failed `max_failures` times in a row, a request job refused for good, a group
    /// with a member that did not succeed; `error` says why.
    case failed
    /// A poll job that reached its total time limit (or its `max_polls`) before the condition held.
    case timedOut = "timed_out"
    /// A request job whose attempts all failed: kept (`request.dead_retention`) for `retry`.
    case dead
    /// Ended by a cancel, a replacement or a closed connection; `reason` says which.
    case cancelled
    /// A schedule whose rule has no elapse left, once its last run ended.
    case completed

    /// Whether the job has ended for good.
    public var isTerminal: Bool { self != .active }
}
