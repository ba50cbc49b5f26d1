/// One event of one job.
public struct JobEvent: Codable, Sendable, Hashable {
    public var type: JobEventType
    public var job: String
    public var kind: JobKind
    public var key: String?
    public var scope: String?
    public var owner: UInt32
    /// When it happened, in wall-clock time.
    public var at: WallTime
    /// Time left, for ticks and registrations of countdowns.
    public var remainingMs: Int64?
    /// How late the expiry was handled, in fractional milliseconds.
    public var lateByMs: Double?
    public var reason: EventReason?
    public var replacedBy: String?
    /// A poll job's polls answered so far.
    public var polls: Int?
    /// A poll job's failed polls in a row.
    public var failures: Int?
    /// The HTTP status of the answer this event reports.
    public var status: Int?
    /// A poll job's progress: the new value for `progress`, the highest so far otherwise.
    public var progress: Double?
    /// Why a poll failed, or why the job failed.
    public var error: String?
    /// A request job's attempt this event reports, from 1.
    public var attempt: Int?
    /// The request job a countdown's expiry (`on_expire`) or a group's completion (`on_complete`) started.
    public var spawned: String?
    /// The group member this event reports, by index.
    public var member: Int?
    /// How that member ended.
    public var memberState: MemberState?
    /// A group's ended members and its member count.
    public var done: Int?
    public var total: Int?
    /// How a completed group ended: `succeeded` or `failed`.
    public var state: JobState?
    /// What a schedule's elapse came to (`elapsed`).
    public var run: ScheduleRun?
    /// How many elapses passed unrun before this one (`elapsed`); with `run: missed`, how many
    /// passed unrun, this one included.
    public var missed: Int?

    public init(
        type: JobEventType, job: String, kind: JobKind, key: String?, scope: String?, owner: UInt32, at: WallTime,
        remainingMs: Int64? = nil, lateByMs: Double? = nil, reason: EventReason? = nil, replacedBy: String? = nil
    ) {
        self.type = type
        self.job = job
        self.kind = kind
        self.key = key
        self.scope = scope
        self.owner = owner
        self.at = at
        self.remainingMs = remainingMs
        self.lateByMs = lateByMs
        self.reason = reason
        self.replacedBy = replacedBy
    }

    enum CodingKeys: String, CodingKey {
        case type = "event"
        case job, kind, key, scope, owner, at
        case remainingMs = "remaining_ms"
        case lateByMs = "late_by_ms"
        case reason
        case replacedBy = "replaced_by"
        case polls, failures, status, progress, error, attempt, spawned, member
        case memberState = "member_state"
        case done, total, state, run, missed
    }
}
