import ReqdProtocol

/// What every job has, whatever its kind: identity, ownership, state and how it ended.
///
/// `JobTable` keeps one per job, beside its kind's state machine. A daemon holds up to millions
/// of them, so what only some ended jobs have (a replacement, an answer, an error) lives in one
/// box. When a job ended is inline: every ended job has it, and a box for it alone (a countdown's,
/// a cancelled job's) cost an ended job 120 bytes against the 8 it adds to every header.
public struct JobHeader: Sendable {
    public let id: JobID
    /// The (owner, key) pair is unique among active jobs: a new job with the same key replaces the old.
    public var key: String?
    public var scope: String?
    public let createdAt: WallTime
    private var ending: Box<Ending>?
    /// When the job ended, in nanoseconds since the epoch; `Int64.min` while it has not.
    private var endedNanos = Int64.min
    /// The raw id of the connection the job is bound to, 0 for none (see `boundTo`).
    private var boundConnection: UInt64
    public var state: JobState
    public let kind: JobKind
    /// Whether the job is in the store.
    public let durable: Bool
    public var reason: EventReason?
    /// The uid that registered the job; only it and root can see or cancel it.
    public let owner: UInt32

    /// What only some ended jobs have.
    struct Ending: Sendable, Hashable {
        var replacedBy: JobID?
        var result: HTTPResult?
        var error: String?
    }

    public init(
        id: JobID, kind: JobKind, owner: UInt32, key: String?, scope: String?, durable: Bool, boundTo: ConnectionID? = nil,
        createdAt: WallTime, state: JobState, endedAt: WallTime? = nil, reason: EventReason? = nil,
        replacedBy: JobID? = nil, result: HTTPResult? = nil, error: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.key = key
        self.scope = scope
        self.createdAt = createdAt
        self.boundConnection = boundTo?.rawValue ?? 0
        self.owner = owner
        self.state = state
        self.durable = durable
        self.reason = reason
        self.endedAt = endedAt
        self.replacedBy = replacedBy
        self.result = result
        self.error = error
    }

    /// The connection the job is bound to: when it closes, the job is cancelled. Never stored.
    ///
    /// Kept as a plain raw value, 0 for none, since connection ids count from 1: an optional
    /// would take a tag byte and, with alignment, eight more bytes in every job's slot.
    public var boundTo: ConnectionID? {
        get { boundConnection == 0 ? nil : ConnectionID(boundConnection) }
        set { boundConnection = newValue?.rawValue ?? 0 }
    }

    /// When the job ended, on the wall clock.
    public var endedAt: WallTime? {
        get { endedNanos == .min ? nil : WallTime(nanosecondsSinceEpoch: endedNanos) }
        set { endedNanos = newValue?.nanosecondsSinceEpoch ?? .min }
    }

    /// The job that replaced this one by taking its key.
    public var replacedBy: JobID? {
        get { ending?.value.replacedBy }
        set { updateEnding { $0.replacedBy = newValue } }
    }

    /// The answer that ended the job, when one did.
    public var result: HTTPResult? {
        get { ending?.value.result }
        set { updateEnding { $0.result = newValue } }
    }

    /// Why the job failed or timed out, in words.
    public var error: String? {
        get { ending?.value.error }
        set { updateEnding { $0.error = newValue } }
    }

    private mutating func updateEnding(_ change: (inout Ending) -> Void) {
        var value = ending?.value ?? Ending()
        change(&value)
        ending = value == Ending() ? nil : Box(value)
    }

    /// Whether the job has not ended.
    public var isActive: Bool { state == .active }
}
