/// What one uid may hold of the daemon at once, so that no user can crowd out the others.
public struct UserLimits: Sendable, Hashable {
    /// Active jobs (with durable ones not yet committed); beyond it, `quota_exceeded`.
    public var activeJobs: Int = 100_000
    /// Open connections; beyond it, the new connection gets `quota_exceeded` and is closed.
    public var connections: Int = 256
    /// HTTP requests on the wire; beyond it, a job's next request waits for one of the user's own
    /// to end, in the order the jobs came to wait.
    public var requestsInFlight: Int = 256
    /// Ended jobs kept for `status`, `list` and `wait`; beyond it, the user's oldest are forgotten.
    public var retainedJobs: Int = 20_000
    /// Whether root is held to the limits too.
    public var applyToRoot = true

    /// Creates the defaults.
    public init() {}

    /// Whether the limits hold for `uid`.
    public func apply(to uid: UInt32) -> Bool { uid != 0 || applyToRoot }
}
