/// Everything the daemon tells about one job, as `status JOB_ID`, `list` and replies show it.
public struct JobInfo: Codable, Sendable, Hashable {
    public var id: String
    public var kind: JobKind
    public var state: JobState
    /// The uid that registered the job.
    public var owner: UInt32
    public var key: String?
    public var scope: String?
    /// Whether the job is in the store and survives a restart.
    public var durable: Bool
    public var createdAt: WallTime
    public var endedAt: WallTime?
    /// Why the job was cancelled, when it was.
    public var reason: EventReason?
    /// The job that replaced this one, when a newer job with its key superseded it.
    public var replacedBy: String?
    /// A countdown's deadline in wall-clock time (projected from the boot-time clock).
    public var deadline: WallTime?
    /// A running countdown's time left: deadline minus now.
    public var remainingMs: Int64?
    /// A countdown's tick interval.
    public var tickMs: Int64?
    /// How late an expiry was handled, in milliseconds (fractional).
    public var lateByMs: Double?
    /// A countdown's `on_expire` request, and the request job its expiry started.
    public var onExpire: OnExpireInfo?
    /// A poll job's settings and counters.
    public var poll: PollInfo?
    /// A request job's request, attempts and policy.
    public var request: RequestInfo?
    /// A group's members and outcome.
    public var group: GroupInfo?
    /// A schedule's rule, next elapses and runs.
    public var schedule: ScheduleInfo?
    /// Whether the job is bound to the connection that registered it, and ends when that closes.
    public var boundToConnection: Bool?
    /// The answer that ended the job, when an answer did.
    public var result: HTTPResult?
    /// Why a failed job failed.
    public var error: String?
    /// A request or poll job's last attempts, oldest first, when `status` asked for them.
    public var attempts: [AttemptInfo]?

    public init(
        id: String, kind: JobKind, state: JobState, owner: UInt32, key: String?, scope: String?, durable: Bool,
        createdAt: WallTime, endedAt: WallTime? = nil, reason: EventReason? = nil, replacedBy: String? = nil,
        deadline: WallTime? = nil, remainingMs: Int64? = nil, tickMs: Int64? = nil, lateByMs: Double? = nil
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.owner = owner
        self.key = key
        self.scope = scope
        self.durable = durable
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.reason = reason
        self.replacedBy = replacedBy
        self.deadline = deadline
        self.remainingMs = remainingMs
        self.tickMs = tickMs
        self.lateByMs = lateByMs
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, state, owner, key, scope, durable
        case createdAt = "created_at"
        case endedAt = "ended_at"
        case reason
        case replacedBy = "replaced_by"
        case deadline
        case remainingMs = "remaining_ms"
        case tickMs = "tick_ms"
        case lateByMs = "late_by_ms"
        case onExpire = "on_expire"
        case poll, request, group, schedule
        case boundToConnection = "bound_to_connection"
        case result, error, attempts
    }
}
