import ReqdProtocol

/// One job the scheduler owns: its identity, ownership, state and kind-specific work.
///
/// A daemon holds up to millions of these in one dictionary, whose slots are sized by the value's
/// stride, so the layout is kept small: what only an ended job has lives in one box, the big
/// kinds' work is boxed (`indirect`), and a countdown's own part stays inline.
public struct Job: Sendable {
    public let id: JobID
    /// The (owner, key) pair is unique among active jobs: a new job with the same key replaces the old.
    public var key: String?
    public var scope: String?
    public let createdAt: WallTime
    /// The connection the job is bound to: when it closes, the job is cancelled. Never stored.
    public var boundTo: ConnectionID?
    public var state: JobState
    /// Whether the job is in the store.
    public let durable: Bool
    public var reason: CancelReason?
    /// The uid that registered the job; only it and root can see or cancel it.
    public let owner: UInt32
    private var ending: Box<Ending>?
    /// The kind-specific part.
    public var work: Work

    /// What only an ended job has.
    struct Ending: Sendable, Hashable {
        var endedAt: WallTime?
        var replacedBy: JobID?
        var result: HTTPResult?
        var error: String?
    }

    public init(
        id: JobID, owner: UInt32, key: String?, scope: String?, durable: Bool, boundTo: ConnectionID? = nil,
        createdAt: WallTime, state: JobState, endedAt: WallTime?, reason: CancelReason?, replacedBy: JobID?,
        result: HTTPResult? = nil, error: String? = nil, work: Work
    ) {
        self.id = id
        self.key = key
        self.scope = scope
        self.createdAt = createdAt
        self.boundTo = boundTo
        self.owner = owner
        self.state = state
        self.durable = durable
        self.reason = reason
        self.work = work
        self.endedAt = endedAt
        self.replacedBy = replacedBy
        self.result = result
        self.error = error
    }

    public var endedAt: WallTime? {
        get { ending?.value.endedAt }
        set { updateEnding { $0.endedAt = newValue } }
    }

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

    /// The kind-specific part of a job.
    public enum Work: Sendable {
        case countdown(Countdown)
        indirect case poll(Poll)
        indirect case request(Delivery)
        indirect case group(Group)

        /// The kind of job this work makes.
        public var kind: JobKind {
            switch self {
            case .countdown: .countdown
            case .poll: .poll
            case .request: .request
            case .group: .group
            }
        }
    }

    /// The job's requests out on the wire now, by attempt number, for aborting them.
    public var onWire: [UInt32] {
        switch work {
        case .countdown: []
        case .poll(let poll): poll.inFlight ? [poll.attempts] : []
        case .request(let delivery): delivery.inFlight ? [delivery.attempts] : []
        case .group(let group): group.onWire
        }
    }

    /// The job's kind.
    public var kind: JobKind { work.kind }

    /// The countdown part, when this job is a countdown.
    public var countdown: Countdown? {
        get {
            if case .countdown(let value) = work { return value }
            return nil
        }
        set {
            if let newValue { work = .countdown(newValue) }
        }
    }

    /// The request part, when this job is a request job.
    public var delivery: Delivery? {
        get {
            if case .request(let value) = work { return value }
            return nil
        }
        set {
            if let newValue { work = .request(newValue) }
        }
    }

    /// The group part, when this job is a group.
    public var group: Group? {
        get {
            if case .group(let value) = work { return value }
            return nil
        }
        set {
            if let newValue { work = .group(newValue) }
        }
    }

    /// The poll part, when this job is a poll job.
    public var poll: Poll? {
        get {
            if case .poll(let value) = work { return value }
            return nil
        }
        set {
            if let newValue { work = .poll(newValue) }
        }
    }
}

/// A countdown's timing. Time left is always `deadline - now`; nothing is decremented.
///
/// 32 bytes inline: what only an expired countdown or one with `on_expire` has is boxed.
public struct Countdown: Sendable, Hashable {
    /// The request to send as a job of its own at expiry: its request and retry policy.
    public var onExpire: Box<Delivery>?
    private var expiry: Box<Expiry>?
    /// When it expires, on the boot-time clock.
    public var deadline: Instant
    /// The tick interval in nanoseconds.
    public var tick: Int64

    /// What a countdown's expiry recorded.
    struct Expiry: Sendable, Hashable {
        var lateBy: Int64?
        var spawned: JobID?
    }

    public init(deadline: Instant, tick: Int64, lateBy: Int64?, onExpire: Box<Delivery>? = nil, spawned: JobID? = nil) {
        self.onExpire = onExpire
        self.deadline = deadline
        self.tick = tick
        if lateBy != nil || spawned != nil { expiry = Box(Expiry(lateBy: lateBy, spawned: spawned)) }
    }

    /// How late the expiry was handled, once it has expired.
    public var lateBy: Int64? {
        get { expiry?.value.lateBy }
        set { expiry = Box(Expiry(lateBy: newValue, spawned: spawned)) }
    }

    /// The request job the expiry started.
    public var spawned: JobID? {
        get { expiry?.value.spawned }
        set { expiry = Box(Expiry(lateBy: lateBy, spawned: newValue)) }
    }
}

/// A client connection as the scheduler knows it.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    /// Wraps a raw value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "conn-\(rawValue)" }
}

/// Who is on the other end of a connection, from SO_PEERCRED.
public struct Peer: Hashable, Sendable {
    public var uid: UInt32
    public var pid: Int32

    public init(uid: UInt32, pid: Int32) {
        self.uid = uid
        self.pid = pid
    }

    /// Root sees and cancels every job; anyone else only their own.
    public func mayAccess(ownerUID: UInt32) -> Bool { uid == 0 || uid == ownerUID }
}
