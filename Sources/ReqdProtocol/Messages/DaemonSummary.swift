/// The result of `status` without a job: the daemon summary.
public struct DaemonSummary: Codable, Sendable, Hashable {
    public var version: String
    public var protocolVersion: Int
    public var pid: Int32?
    public var startedAt: WallTime
    public var uptimeMs: Int64
    /// Job counts by kind, then by state. Non-root callers see only their own jobs counted.
    public var jobs: [String: [String: Int]]
    /// Open client connections, all users'.
    public var connections: Int
    /// `socket.max_connections` as the daemon applies it (derived from `RLIMIT_NOFILE` when not set).
    public var maxConnections: Int?
    /// Whether request jobs wait for unreachable targets.
    public var network: NetworkSummary
    /// The caller's use of its per-user limits.
    public var limits: LimitsSummary?
    /// Each target's limits and live state, when `status` asked for `targets`.
    public var targets: [TargetLimitInfo]?

    public init(
        version: String, protocolVersion: Int, pid: Int32?, startedAt: WallTime, uptimeMs: Int64,
        jobs: [String: [String: Int]], connections: Int, network: NetworkSummary = NetworkSummary(state: .online),
        limits: LimitsSummary? = nil, maxConnections: Int? = nil, targets: [TargetLimitInfo]? = nil
    ) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.startedAt = startedAt
        self.uptimeMs = uptimeMs
        self.jobs = jobs
        self.connections = connections
        self.network = network
        self.limits = limits
        self.maxConnections = maxConnections
        self.targets = targets
    }

    enum CodingKeys: String, CodingKey {
        case version
        case protocolVersion = "protocol"
        case pid
        case startedAt = "started_at"
        case uptimeMs = "uptime_ms"
        case jobs, connections, network, limits, targets
        case maxConnections = "max_connections"
    }
}
