/// What a `cancel`, `watch` or `list` names: one job, one key or one scope.
public struct JobSelector: Codable, Sendable, Hashable {
    /// A job id.
    public var job: String?
    /// A key in the caller's namespace.
    public var key: String?
    /// A scope.
    public var scope: String?

    public init(job: String? = nil, key: String? = nil, scope: String? = nil) {
        self.job = job
        self.key = key
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case job, key, scope
    }
}
