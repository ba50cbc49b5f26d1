/// `wait`: reply once the job has ended.
public struct WaitRequest: Codable, Sendable, Hashable {
    public var job: String

    public init(job: String) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}
