import ReqdProtocol

/// A group job: members run together, at most `concurrency` at once, in member order.
///
/// A started member keeps its slot until it ends, retries included, so no more than `concurrency`
/// requests are ever out. The group ends once, when every member has ended or its time limit
/// runs out; then members still running are `timed_out` and those never started `not_started`.
///
/// Counts and the running set are kept as members change, so an answer costs work in proportion
/// to the cap, not to the group's size.
public struct Group: Sendable, Hashable {
    public private(set) var members: [GroupMember]
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
    public private(set) var requestsStarted: UInt32 = 0
    /// When a restored group starts its members again.
    public var resumeAt: Instant?
    /// The members started and not ended: each holds a slot.
    public private(set) var running: Set<Int> = []
    /// The member of each request on the wire, by its number.
    public private(set) var wires: [UInt32: Int] = [:]
    /// Members that have ended.
    public private(set) var done = 0
    /// Members that ended other than succeeded.
    public private(set) var failures = 0
    /// The first member that may still be pending; members before it have all started.
    private var nextPending = 0

    /// Creates a group from its members as they are (all pending, or restored).
    public init(members: [GroupMember], concurrency: Int, timeout: Int64?, deadline: Instant?, onComplete: Box<Delivery>?) {
        self.members = members
        self.concurrency = concurrency
        self.timeout = timeout
        self.deadline = deadline
        self.onComplete = onComplete
        for (index, member) in members.enumerated() {
            if member.state == .running { running.insert(index) }
            if member.state.isEnded {
                done += 1
                if member.state != .succeeded { failures += 1 }
            }
        }
    }

    /// The numbers of the requests on the wire now.
    public var onWire: [UInt32] { Array(wires.keys) }

    /// Whether every member has ended.
    public var isComplete: Bool { done == members.count }

    /// The next pending member, in order, if a slot is free.
    public mutating func nextToStart() -> Int? {
        guard running.count < concurrency else { return nil }
        while nextPending < members.count {
            defer { nextPending += 1 }
            if members[nextPending].state == .pending { return nextPending }
        }
        return nil
    }

    /// The members `startDue(at:timeout:)` would start now, in the same order; nothing changes, so
    /// asking costs work in proportion to the cap, not a copy of the members.
    func plannedStarts(at now: Instant) -> [Int] {
        var planned = running.filter { !members[$0].delivery.inFlight && members[$0].delivery.nextAttempt <= now }.sorted()
        var slots = running.count
        var index = nextPending
        while slots < concurrency, index < members.count {
            if members[index].state == .pending {
                planned.append(index)
                slots += 1
            }
            index += 1
        }
        return planned
    }

    /// Sends a member's next attempt: marks it running and gives the request a fresh number.
    public mutating func startAttempt(_ index: Int, at now: Instant, timeout: Int64) -> UInt32 {
        if members[index].state == .pending {
            members[index].state = .running
            running.insert(index)
        }
        requestsStarted += 1
        wires[requestsStarted] = index
        members[index].wire = requestsStarted
        members[index].delivery.start(at: now, timeout: timeout)
        return requestsStarted
    }

    /// Where a member's answer leaves the group.
    public enum Step: Sendable, Hashable {
        /// The member tries again after its backoff.
        case retrying(member: Int)
        /// The member ended; `complete` when it was the last one.
        case ended(member: Int, complete: Bool)
    }

    /// Records the end of a member's request and says what follows; nil when no member waits for
    /// a request with this number (it was aborted, or the answer is stale).
    public mutating func finish(
        _ number: UInt32, _ outcome: HTTPOutcome, at now: ClockReading, random: Double, keeping bodyBytes: Int
    ) -> Step? {
        guard let index = wires.removeValue(forKey: number) else { return nil }
        members[index].wire = nil
        let (step, answer) = members[index].delivery.finish(outcome, at: now, random: random)
        // An attempt that got no answer leaves none: an earlier attempt's is not this one's.
        members[index].result = answer?.kept(bodyBytes)
        switch step {
        case .succeeded: end(index, as: .succeeded, error: nil)
        case .failed(let why, _): end(index, as: .failed, error: why)
        case .retry, .held: return .retrying(member: index)
        }
        return .ended(member: index, complete: isComplete)
    }

    /// Starts retries of running members that are due, then pending members in order while a slot
    /// is free; returns each request's member and number.
    mutating func startDue(at now: Instant, timeout: Int64, limit: Int = .max) -> [(member: Int, number: UInt32)] {
        resumeAt = nil
        let retries = running.filter { index in
            let delivery = members[index].delivery
            return !delivery.inFlight && delivery.nextAttempt <= now
        }
        var started: [(member: Int, number: UInt32)] = []
        for index in retries.sorted().prefix(limit) {
            started.append((index, startAttempt(index, at: now, timeout: timeout)))
        }
        while started.count < limit, let index = nextToStart() {
            started.append((index, startAttempt(index, at: now, timeout: timeout)))
        }
        return started
    }

    /// Ends every member still going because the group's time limit ran out: running ones
    /// `timed_out`, pending ones `not_started`. Returns the numbers of the requests to abort.
    mutating func timeOut() -> [UInt32] {
        let limit = DurationText.format(nanoseconds: timeout ?? 0)
        var aborted: [UInt32] = []
        for index in members.indices {
            switch members[index].state {
            case .running:
                if let wire = end(index, as: .timedOut, error: "still running when the group's time limit of \(limit) ran out") {
                    aborted.append(wire)
                }
            case .pending:
                end(index, as: .notStarted, error: "not started before the group's time limit ran out")
            default:
                break
            }
        }
        return aborted
    }

    /// Ends the members the group's end overtook (a cancel, a newer job with its key, its
    /// connection's close): a running one `cancelled`, its request aborted by the caller, a
    /// pending one `not_started`.
    mutating func endOvertaken() {
        for index in members.indices {
            switch members[index].state {
            case .running: end(index, as: .cancelled, error: "the group ended while it ran")
            case .pending: end(index, as: .notStarted, error: "the group ended before it started")
            default: break
            }
        }
    }

    /// Ends a member that has not ended; returns the number of its request on the wire, if any, to abort.
    @discardableResult
    public mutating func end(_ index: Int, as state: MemberState, error: String?) -> UInt32? {
        guard !members[index].state.isEnded else { return nil }
        let wire = members[index].wire
        if let wire { wires[wire] = nil }
        members[index].wire = nil
        members[index].delivery.inFlight = false
        members[index].state = state
        members[index].error = error
        running.remove(index)
        done += 1
        if state != .succeeded { failures += 1 }
        return wire
    }

    /// The next instant the group needs the timer: its time limit, a restart, a running member's
    /// next attempt or its request timeout.
    public var nextFire: Instant? {
        var next = [deadline, resumeAt].compactMap { $0 }.min()
        for index in running {
            let fire = members[index].delivery.nextFire
            next = min(next ?? fire, fire)
        }
        return next
    }
}
