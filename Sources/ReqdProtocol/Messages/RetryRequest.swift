/// `retry`: puts a dead (or failed) request job back in the queue with fresh attempts.
public struct RetryRequest: Codable, Sendable, Hashable {
    public var job: String

    public init(job: String) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}
