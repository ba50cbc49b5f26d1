import ReqdProtocol

/// A job as the store keeps it: one row, with deadlines in wall-clock time so they survive a reboot.
public struct JobRecord: Sendable, Hashable {
    public var id: String
    public var owner: UInt32
    public var kind: JobKind
    public var state: JobState
    public var key: String?
    public var scope: String?
    public var createdAt: WallTime
    public var endedAt: WallTime?
    public var reason: EventReason?
    public var replacedBy: String?
    /// A countdown's deadline, projected onto the wall clock when the record was written.
    public var deadline: WallTime?
    public var tickNanos: Int64?
    public var lateByNanos: Int64?
    /// Everything else about the job, kind by kind; boxed, as it is large and often empty.
    private var detailBox: Box<JobDetail>?
    /// An active poll's last attempts, read back at start-up: it keeps them in memory while it
    /// runs (`AttemptLog`). The store keeps them apart from the row (`StoreChange.attempt`).
    public var attempts: [AttemptInfo]?

    public init(
        id: String, owner: UInt32, kind: JobKind, state: JobState, key: String?, scope: String?,
        createdAt: WallTime, endedAt: WallTime?, reason: EventReason?, replacedBy: String?,
        deadline: WallTime?, tickNanos: Int64?, lateByNanos: Int64?, detail: consuming JobDetail? = nil
    ) {
        self.id = id
        self.owner = owner
        self.kind = kind
        self.state = state
        self.key = key
        self.scope = scope
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.reason = reason
        self.replacedBy = replacedBy
        self.deadline = deadline
        self.tickNanos = tickNanos
        self.lateByNanos = lateByNanos
        if let detail = consume detail, !detail.isEmpty { detailBox = Box(detail) } else { detailBox = nil }
    }

    /// Everything else about the job, kind by kind.
    public var detail: JobDetail {
        get { detailBox?.value ?? JobDetail() }
        set { detailBox = newValue.isEmpty ? nil : Box(newValue) }
    }

    /// The detail where it is kept, nil when empty: its parts are read through the box, not copied
    /// out whole. A `JobDetail` is over a kilobyte, and a restart reads a million rows.
    var storedDetail: Box<JobDetail>? { detailBox }
}
