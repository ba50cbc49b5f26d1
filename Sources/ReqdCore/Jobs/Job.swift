import ReqdProtocol

/// One whole job as a value: its header and its kind's state machine.
///
/// The scheduler keeps the two apart, headers in `JobTable` and each kind's machines in a table
/// of their own, so each slot is sized for its own kind. A `Job` is assembled only where a whole
/// job must travel: a registration waiting for its commit, a store record, a view on the wire, a
/// test's look at one job. Hold one only briefly: while it lives, it shares the kind's arrays
/// (a group's members), and changing the machine in its table would copy them.
@dynamicMemberLookup
public struct Job: Sendable {
    public var header: JobHeader
    /// The kind-specific part.
    public var work: Work

    /// The kind-specific part of a job.
    public enum Work: Sendable {
        case countdown(Countdown)
        case poll(Poll)
        case request(Delivery)
        case group(Group)
        case schedule(Schedule)

        /// The kind of job this work makes.
        public var kind: JobKind {
            switch self {
            case .countdown: .countdown
            case .poll: .poll
            case .request: .request
            case .group: .group
            case .schedule: .schedule
            }
        }
    }

    public init(header: JobHeader, work: Work) {
        self.header = header
        self.work = work
    }

    public init(
        id: JobID, owner: UInt32, key: String?, scope: String?, durable: Bool, boundTo: ConnectionID? = nil,
        createdAt: WallTime, state: JobState, endedAt: WallTime?, reason: EventReason?, replacedBy: JobID?,
        result: HTTPResult? = nil, error: String? = nil, work: Work
    ) {
        header = JobHeader(
            id: id, kind: work.kind, owner: owner, key: key, scope: scope, durable: durable, boundTo: boundTo,
            createdAt: createdAt, state: state, endedAt: endedAt, reason: reason, replacedBy: replacedBy, result: result,
            error: error)
        self.work = work
    }

    /// A header field, read through the job.
    public subscript<T>(dynamicMember path: KeyPath<JobHeader, T>) -> T { header[keyPath: path] }

    /// A header field, read or changed through the job.
    public subscript<T>(dynamicMember path: WritableKeyPath<JobHeader, T>) -> T {
        get { header[keyPath: path] }
        set { header[keyPath: path] = newValue }
    }

    /// The countdown part, when this job is a countdown.
    public var countdown: Countdown? {
        if case .countdown(let value) = work { return value }
        return nil
    }

    /// The poll part, when this job is a poll job.
    public var poll: Poll? {
        if case .poll(let value) = work { return value }
        return nil
    }

    /// The request part, when this job is a request job.
    public var delivery: Delivery? {
        if case .request(let value) = work { return value }
        return nil
    }

    /// The group part, when this job is a group.
    public var group: Group? {
        if case .group(let value) = work { return value }
        return nil
    }

    /// The schedule part, when this job is a schedule.
    public var schedule: Schedule? {
        if case .schedule(let value) = work { return value }
        return nil
    }
}
