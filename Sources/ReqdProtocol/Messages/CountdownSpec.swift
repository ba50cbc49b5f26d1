/// `register-countdown`: a countdown, optionally identified by (owner, key).
public struct CountdownSpec: Codable, Sendable, Hashable {
    /// The countdown's key, if any; registering the same key again replaces the running job with it.
    public var key: String?
    /// How long to count down, in milliseconds. Exactly one of this and `until` is given.
    public var durationMs: Int64?
    /// The wall-clock time to count down to. Exactly one of this and `durationMs` is given.
    public var until: WallTime?
    /// The tick interval in milliseconds (default 1000).
    public var tickMs: Int64?
    /// An optional scope, used by `cancel --scope` and `watch --scope`.
    public var scope: String?
    /// Skip the store: the countdown is not restored after a restart.
    public var ephemeral: Bool?
    /// Cancel the countdown when the connection that registered it closes.
    public var bindConnection: Bool?
    /// A request to send, as a request job of its own, when the countdown expires.
    public var onExpire: RequestSpec?
    /// Stream the job's events on this connection after the reply, tagged with this request's id.
    public var follow: Bool?

    public init(
        key: String? = nil, durationMs: Int64? = nil, until: WallTime? = nil, tickMs: Int64? = nil,
        scope: String? = nil, ephemeral: Bool? = nil, bindConnection: Bool? = nil, onExpire: RequestSpec? = nil,
        follow: Bool? = nil
    ) {
        self.bindConnection = bindConnection
        self.onExpire = onExpire
        self.key = key
        self.durationMs = durationMs
        self.until = until
        self.tickMs = tickMs
        self.scope = scope
        self.ephemeral = ephemeral
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case key
        case durationMs = "duration_ms"
        case until
        case tickMs = "tick_ms"
        case scope, ephemeral
        case bindConnection = "bind_connection"
        case onExpire = "on_expire"
        case follow
    }
}
