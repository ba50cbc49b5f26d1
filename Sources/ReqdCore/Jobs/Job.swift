import ReqdProtocol

/// One job the scheduler owns: its identity, ownership, state and kind-specific work.
public struct Job: Sendable {
    public let id: JobID
    /// The uid that registered the job; only it and root can see or cancel it.
    public let owner: UInt32
    /// The (owner, key) pair is unique among active jobs: a new job with the same key replaces the old.
    public var key: String?
    public var scope: String?
    /// Whether the job is in the store.
    public let durable: Bool
    /// The connection the job is bound to: when it closes, the job is cancelled. Never stored.
    public var boundTo: ConnectionID? = nil
    public let createdAt: WallTime
    public var state: JobState
    public var endedAt: WallTime?
    public var reason: CancelReason?
    public var replacedBy: JobID?
    /// The answer that ended the job, when one did.
    public var result: HTTPResult?
    /// Why the job failed or timed out, in words.
    public var error: String?
    /// The kind-specific part.
    public var work: Work

    /// The kind-specific part of a job.
    public enum Work: Sendable {
        case countdown(Countdown)
        case poll(Poll)
        case request(Delivery)
        case group(Group)

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
public struct Countdown: Sendable, Hashable {
    /// When it expires, on the boot-time clock.
    public var deadline: Instant
    /// The tick interval in nanoseconds.
    public var tick: Int64
    /// How late the expiry was handled, once it has expired.
    public var lateBy: Int64?
    /// The request to send as a job of its own at expiry: its request and retry policy.
    public var onExpire: Box<Delivery>? = nil
    /// The request job the expiry started.
    public var spawned: JobID? = nil
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

    /// Creates a `Peer` from its parts.
    public init(uid: UInt32, pid: Int32) {
        self.uid = uid
        self.pid = pid
    }

    /// Root sees and cancels every job; anyone else only their own.
    public func mayAccess(ownerUID: UInt32) -> Bool { uid == 0 || uid == ownerUID }
}
