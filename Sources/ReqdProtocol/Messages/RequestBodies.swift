/// `hello`: states the protocol version the client speaks.
public struct HelloRequest: Codable, Sendable, Hashable {
    /// The protocol version the client speaks.
    public var protocolVersion: Int
    /// A free-form client name for logs, such as `reqd-client/0.1.0`.
    public var client: String?

    public init(protocolVersion: Int = ProtocolInfo.version, client: String? = nil) {
        self.protocolVersion = protocolVersion
        self.client = client
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case protocolVersion = "protocol"
        case client
    }
}

/// `register-countdown`: a countdown identified by (owner, key).
public struct CountdownSpec: Codable, Sendable, Hashable {
    /// The countdown's key; registering the same key again replaces the running countdown.
    public var key: String
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
        key: String, durationMs: Int64? = nil, until: WallTime? = nil, tickMs: Int64? = nil,
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

/// `status`: the daemon summary without a job, or one job in full.
public struct StatusRequest: Codable, Sendable, Hashable {
    /// The job to describe; omit it for the daemon summary.
    public var job: String?

    public init(job: String? = nil) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}

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

/// `unwatch`: ends the subscriptions that a `watch` (or `follow`) with this id started.
public struct UnwatchRequest: Codable, Sendable, Hashable {
    public var watch: RequestID

    public init(watch: RequestID) { self.watch = watch }

    enum CodingKeys: String, CodingKey, CaseIterable { case watch }
}

/// `wait`: reply once the job has ended.
public struct WaitRequest: Codable, Sendable, Hashable {
    public var job: String

    public init(job: String) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}

/// `retry`: puts a dead (or failed) request job back in the queue with fresh attempts.
public struct RetryRequest: Codable, Sendable, Hashable {
    public var job: String

    public init(job: String) { self.job = job }

    enum CodingKeys: String, CodingKey, CaseIterable { case job }
}
