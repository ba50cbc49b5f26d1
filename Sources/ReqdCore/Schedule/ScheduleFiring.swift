import ReqdProtocol

/// What one timer firing of a schedule came to.
enum ScheduleFiring: Sendable, Hashable {
    /// Not yet due on the wall clock (it was stepped back): arm again.
    case early
    /// Elapsed: start a run (after cancelling `replacing`, the run still going under `replace`).
    /// `missed` elapses before it passed unrun (downtime, suspend); `lateBy` is from the first due one.
    case run(lateBy: Int64, missed: Int, replacing: JobID?)
    /// Elapsed with no request: tell the watchers only.
    case elapsed(lateBy: Int64, missed: Int)
    /// Elapsed while a run was going: skipped (`skip`), or left waiting for it (`queue`).
    case skipped(lateBy: Int64, missed: Int)
    case queued(lateBy: Int64, missed: Int)
    /// The elapses passed while the daemon was down or the machine slept, and `catch_up` is
    /// `none`: `count` of them, this one included.
    case missed(count: Int, lateBy: Int64)
    /// Nothing to do: paused, or no elapse left.
    case idle
}
