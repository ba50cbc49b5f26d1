/// The result of `metrics`: the exposition text a scraper reads, the gauges it was made from, and
/// the caller's jobs and targets that need attention.
///
/// The text and the counts are the daemon's, over every user's jobs: they name no job, key or
/// host. `soonest` and `targets` show only the caller's jobs, unless the caller is root.
public struct MetricsResult: Codable, Sendable, Hashable {
    /// Every metric in the Prometheus text exposition format (version 0.0.4), as the endpoint serves it.
    public var text: String
    /// Job counts by kind, then by state, over every user's jobs.
    public var jobs: [String: [String: Int]]
    /// Request jobs waiting for an unreachable target, every user's.
    public var heldJobs: Int
    /// Targets found unreachable now.
    public var unreachableTargets: Int
    /// Open client connections.
    public var connections: Int
    /// The caller's jobs whose next deadline (expiry, tick, poll, attempt, time limit) comes soonest, soonest first.
    public var soonest: [SoonestJob]
    /// Targets of the caller's jobs that are unreachable or failing, most failures first.
    public var targets: [TargetInfo]

    public init(
        text: String = "", jobs: [String: [String: Int]], heldJobs: Int, unreachableTargets: Int, connections: Int,
        soonest: [SoonestJob], targets: [TargetInfo]
    ) {
        self.text = text
        self.jobs = jobs
        self.heldJobs = heldJobs
        self.unreachableTargets = unreachableTargets
        self.connections = connections
        self.soonest = soonest
        self.targets = targets
    }

    enum CodingKeys: String, CodingKey {
        case text, jobs
        case heldJobs = "held_jobs"
        case unreachableTargets = "unreachable_targets"
        case connections, soonest, targets
    }
}
