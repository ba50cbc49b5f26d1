/// `list`: jobs matching every given filter.
public struct ListRequest: Codable, Sendable, Hashable {
    public var state: JobState?
    public var kind: JobKind?
    public var scope: String?
    public var key: String?
    /// At most this many jobs in the page (default 100, at most 1000).
    public var limit: Int?
    /// Where the page begins: the `next` of the page before.
    public var after: String?

    public init(
        state: JobState? = nil, kind: JobKind? = nil, scope: String? = nil, key: String? = nil, limit: Int? = nil, after: String? = nil
    ) {
        self.state = state
        self.kind = kind
        self.scope = scope
        self.key = key
        self.limit = limit
        self.after = after
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case state, kind, scope, key, limit, after }
}
