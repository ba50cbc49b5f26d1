/// The limits and defaults the scheduler applies. The daemon builds it from its configuration file.
public struct SchedulerConfiguration: Sendable, Hashable {
    /// The tick of a countdown that names none.
    public var defaultTickNanos: Int64 = 1_000_000_000
    /// The smallest tick accepted.
    public var minTickNanos: Int64 = 10_000_000
    /// The longest countdown accepted; anything longer is an absurd duration.
    public var maxDurationNanos: Int64 = 3_650 * 86_400 * 1_000_000_000
    /// The most jobs (active and waiting for their commit) held at once.
    public var maxActiveJobs: Int = 5_000_000
    /// How long ended jobs stay visible to `status`, `list` and `wait`.
    public var retentionNanos: Int64 = 3_600 * 1_000_000_000
    /// The most ended jobs kept; the oldest go first beyond it.
    public var maxRetainedJobs: Int = 100_000
    /// The longest key or scope, in bytes.
    public var maxNameBytes: Int = 256
    /// The most jobs one `list` reply holds.
    public var maxListLimit: Int = 100_000
    /// The uid and pid of the daemon, shown in the summary.
    public var daemonPID: Int32? = nil

    /// The defaults.
    public init() {}
}
