/// `status`: the daemon summary without a job, or one job in full.
public struct StatusRequest: Codable, Sendable, Hashable {
    /// The job to describe; omit it for the daemon summary.
    public var job: String?

    public init(job: String? = nil) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}
