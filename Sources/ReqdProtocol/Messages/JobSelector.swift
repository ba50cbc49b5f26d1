/// What a `cancel`, `watch` or `list` names: one job, one key or one scope.
public struct JobSelector: Codable, Sendable, Hashable {
    /// A job id.
    public var job: String?
    /// A key in the caller's namespace.
    public var key: String?
    /// A scope.
    public var scope: String?
    /// For `cancel` only: also cancel the request jobs the cancelled schedules have running,
    /// aborting their requests on the wire. Without it a run in flight finishes.
    public var abort: Bool?

    public init(job: String? = nil, key: String? = nil, scope: String? = nil, abort: Bool? = nil) {
        self.job = job
        self.key = key
        self.scope = scope
        self.abort = abort
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case job, key, scope, abort
    }

    /// The fields of the operations that take a selector alone (`watch`, `pause`, `resume`).
    static let selectorFields = ["job", "key", "scope"]
}
