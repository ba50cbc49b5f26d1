/// `register-group`: several requests run together under a concurrency cap, reported once when all have ended.
public struct GroupSpec: Codable, Sendable, Hashable {
    /// The members, each a full request with its own optional retry policy, in order.
    public var members: [RequestSpec]
    /// Members in flight at most (default 4).
    public var concurrency: Int?
    /// A time limit for the whole group, in milliseconds.
    public var timeoutMs: Int64?
    /// A request to POST the group's result (JSON) to when it completes.
    public var onComplete: RequestSpec?
    /// The replace key: a new job with the same (owner, key) cancels this one, of any kind.
    public var key: String?
    /// An optional scope, used by `cancel --scope` and `watch --scope`.
    public var scope: String?
    /// Skip the store: the group is not restored after a restart.
    public var ephemeral: Bool?
    /// Cancel the group when the connection that registered it closes.
    public var bindConnection: Bool?
    /// Stream the group's events on this connection after the reply, tagged with this request's id.
    public var follow: Bool?

    public init(
        members: [RequestSpec], concurrency: Int? = nil, timeoutMs: Int64? = nil, onComplete: RequestSpec? = nil,
        key: String? = nil, scope: String? = nil, ephemeral: Bool? = nil, bindConnection: Bool? = nil, follow: Bool? = nil
    ) {
        self.members = members
        self.concurrency = concurrency
        self.timeoutMs = timeoutMs
        self.onComplete = onComplete
        self.key = key
        self.scope = scope
        self.ephemeral = ephemeral
        self.bindConnection = bindConnection
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case members, concurrency
        case timeoutMs = "timeout_ms"
        case onComplete = "on_complete"
        case key, scope, ephemeral
        case bindConnection = "bind_connection"
        case follow
    }
}
