/// What happened to a job, as streamed to watchers and written to the log.
public enum JobEventType: String, Codable, Sendable, Hashable {
    /// The job was accepted (and, when durable, written to disk).
    case registered
    /// A countdown crossed a whole multiple of its tick.
    case tick
    /// A countdown reached its deadline. Terminal.
    case expired
    /// The job was cancelled; `reason` says why. Terminal.
    case cancelled
    /// A poll was answered (or failed) without moving the progress forward.
    case polled
    /// A poll moved the progress forward; `progress` holds the new value.
    case progress
    /// A request job's attempt failed and another one is planned; `attempt`, `status` or `error` say which and why.
    case retrying
    /// A request job's attempt found its target unreachable (no route, or DNS failing for now):
    /// the attempt does not count, and the job waits until the target answers again. `error` says why.
    case held
    /// A poll job's condition held, or a request job was answered. Terminal.
    case succeeded
    /// A poll job failed too often in a row, or a request job ran out of attempts or was refused; `error` says why. Terminal.
    case failed
    /// A poll job ran out of time or polls. Terminal.
    case timedOut = "timed_out"
    /// A request job used up its attempts and was dead-lettered; `error` says why. Terminal (until `retry`).
    case dead
    /// A group member ended; `member`, `member_state`, `done`, `total` and `failures` say which and how far. (Watchers only.)
    case member
    /// A group ended: every member has ended, or its time limit ran out. `state` says how. Terminal.
    case completed

    /// Whether this event ends the job's stream.
    public var isTerminal: Bool {
        switch self {
        case .expired, .cancelled, .succeeded, .failed, .timedOut, .completed, .dead: true
        case .registered, .tick, .polled, .progress, .retrying, .held, .member: false
        }
    }

    /// The terminal event for a job that ended in `state`.
    public init?(ending state: JobState) {
        switch state {
        case .active: return nil
        case .expired: self = .expired
        case .cancelled: self = .cancelled
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .timedOut: self = .timedOut
        case .dead: self = .dead
        }
    }
}

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
    public var reason: CancelReason?
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

    public init(
        type: JobEventType, job: String, kind: JobKind, key: String?, scope: String?, owner: UInt32, at: WallTime,
        remainingMs: Int64? = nil, lateByMs: Double? = nil, reason: CancelReason? = nil, replacedBy: String? = nil
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
        case done, total, state
    }
}

/// An event line on the wire: the event plus the id of the `watch` (or `follow`) request it belongs to.
public struct EventMessage: Codable, Sendable, Hashable {
    public var watch: RequestID
    public var event: JobEvent

    public init(watch: RequestID, event: JobEvent) {
        self.watch = watch
        self.event = event
    }

    enum CodingKeys: String, CodingKey { case watch }

    public init(from decoder: any Decoder) throws {
        watch = try decoder.container(keyedBy: CodingKeys.self).decode(RequestID.self, forKey: .watch)
        event = try JobEvent(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(watch, forKey: .watch)
        try event.encode(to: encoder)
    }
}
