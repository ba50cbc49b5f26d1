/// `delete`: forgets an ended (or dead) job at once, from memory and the store, before its retention passes.
public struct DeleteRequest: Codable, Sendable, Hashable {
    public var job: String

    public init(job: String) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}
