/// `list`: jobs matching every given filter.
public struct ListRequest: Codable, Sendable, Hashable {
    public var state: JobState?
    public var kind: JobKind?
    public var scope: String?
    public var key: String?
    /// At most this many jobs (default 1000, at most 100000).
    public var limit: Int?

    public init(state: JobState? = nil, kind: JobKind? = nil, scope: String? = nil, key: String? = nil, limit: Int? = nil)
    {
        self.state = state
        self.kind = kind
        self.scope = scope
        self.key = key
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case state, kind, scope, key, limit }
}
