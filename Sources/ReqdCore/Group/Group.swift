import ReqdProtocol

/// A group job: members run together, at most `concurrency` at once, in member order.
///
/// A started member keeps its slot until it ends, retries included, so no more than `concurrency`
/// requests are ever out. The group ends once, when every member has ended or its time limit
/// runs out; then members still running are `timed_out` and those never started `not_started`.
public struct Group: Sendable, Hashable {
    public var members: [GroupMember]
    public var concurrency: Int
    /// The time limit as given, in nanoseconds.
    public var timeout: Int64?
    /// When the time limit runs out, on the boot-time clock.
    public var deadline: Instant?
    /// The request to POST the result to at completion.
    public var onComplete: Box<Delivery>?
    /// The request job the completion started.
    public var spawned: JobID?
    /// Requests started so far, group-wide: each one's number, so a completion finds its member.
    public var requestsStarted: UInt32 = 0
    /// The first member that may still be pending; members before it have all started.
    public var nextPending = 0
    /// When a restored group starts its members again.
    public var resumeAt: Instant?

    /// Creates a group none of whose members has started.
    public init(members: [GroupMember], concurrency: Int, timeout: Int64?, deadline: Instant?, onComplete: Box<Delivery>?) {
        self.members = members
        self.concurrency = concurrency
        self.timeout = timeout
        self.deadline = deadline
        self.onComplete = onComplete
    }

    /// Members started and not ended: each holds a slot.
    public var running: Int { members.reduce(0) { $0 + ($1.state == .running ? 1 : 0) } }

    /// Members that have ended.
    public var done: Int { members.reduce(0) { $0 + ($1.state.isEnded ? 1 : 0) } }

    /// Members that ended other than succeeded.
    public var failures: Int { members.reduce(0) { $0 + ($1.state.isEnded && $1.state != .succeeded ? 1 : 0) } }

    /// The numbers of the requests on the wire now.
    public var onWire: [UInt32] { members.compactMap(\.wire) }

    /// The member whose request has this number, if it is still out.
    public func member(onWire number: UInt32) -> Int? { members.firstIndex { $0.wire == number } }

    /// The next instant the group needs the timer: its time limit, a running member's next
    /// attempt or its request timeout.
    public var nextFire: Instant? {
        var next = [deadline, resumeAt].compactMap { $0 }.min()
        for member in members where member.state == .running {
            next = min(next ?? member.delivery.nextFire, member.delivery.nextFire)
        }
        return next
    }
}
