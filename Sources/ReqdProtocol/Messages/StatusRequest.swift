/// `status`: one job, or the daemon summary.
public struct StatusRequest: Codable, Sendable, Hashable {
    /// The job to describe; omit it for the daemon summary.
    public var job: String?
    /// With the summary, each target's limits and live state (`DaemonSummary.targets`).
    public var targets: Bool?
    /// With a job, its attempt log (`JobInfo.attempts`).
    public var attempts: Bool?

    public init(job: String? = nil, targets: Bool? = nil, attempts: Bool? = nil) {
        self.job = job
        self.targets = targets
        self.attempts = attempts
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case job, targets, attempts }
}
