/// `status`: one job, or the daemon summary.
public struct StatusRequest: Codable, Sendable, Hashable {
    /// The job to describe; omit it for the daemon summary.
    public var job: String?
    /// With the summary, each target's limits and live state (`DaemonSummary.targets`).
    public var targets: Bool?

    public init(job: String? = nil, targets: Bool? = nil) {
        self.job = job
        self.targets = targets
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case job, targets }
}
