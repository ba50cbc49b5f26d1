import ReqdProtocol

/// A group as stored: its members' requests, written once, and where each member is.
public typealias GroupRecord = WorkRecord<GroupSettings, GroupCounters>

/// What a stored group runs, and its time limit on the wall clock.
public struct GroupSettings: Sendable, Hashable, Codable {
    public var members: [DeliverySettings]
    public var concurrency: Int
    public var timeoutNanos: Int64?
    public var deadline: WallTime?
    public var onComplete: DeliverySettings?

    enum CodingKeys: String, CodingKey {
        case members, concurrency
        case timeoutNanos = "timeout_ns"
        case deadline
        case onComplete = "on_complete"
    }
}

/// Where each member of a stored group is, and the request job its completion started.
public struct GroupCounters: Sendable, Hashable, Codable {
    public var members: [MemberRecord]
    public var spawned: String?

    enum CodingKeys: String, CodingKey {
        case members = "member_states"
        case spawned
    }
}

/// One member as stored.
public struct MemberRecord: Sendable, Hashable, Codable {
    public var state: MemberState
    /// Attempts that ended.
    public var attempts: Int
    public var lastStatus: Int?
    public var result: HTTPResult?
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case state, attempts
        case lastStatus = "last_status"
        case result, error
    }
}

extension MemberRecord {
    /// A member as stored; an attempt out now is not counted, since it is sent again after a restart.
    init(_ member: GroupMember) {
        self.init(
            state: member.state, attempts: Int(member.delivery.attempts) - (member.delivery.inFlight ? 1 : 0),
            lastStatus: member.delivery.lastStatus, result: member.result, error: member.error)
    }
}

extension WorkRecord where Settings == GroupSettings, Counters == GroupCounters {
    /// The stored form of a group, its time limit projected onto the wall clock.
    init(_ group: Group, at now: ClockReading) {
        self.init(
            settings: GroupSettings(
                members: group.members.map { DeliverySettings($0.delivery) }, concurrency: group.concurrency,
                timeoutNanos: group.timeout, deadline: group.deadline.map(now.wall(at:)),
                onComplete: group.onComplete.map { DeliverySettings($0.value) }),
            counters: GroupCounters(members: group.members.map(MemberRecord.init), spawned: group.spawned?.rawValue))
    }

    /// The group as it resumes: ended members keep their outcome and are not sent again; the
    /// others start again, as soon as the timer fires, in member order.
    func resumed(at now: ClockReading) -> Group? {
        guard settings.members.count == counters.members.count, settings.concurrency > 0 else { return nil }
        let members = zip(settings.members, counters.members).map { settings, stored in
            var member = GroupMember(delivery: settings.delivery(firstAttempt: now.instant))
            member.delivery.attempts = UInt32(clamping: stored.attempts)
            member.delivery.lastStatus = stored.lastStatus
            member.state = stored.state.isEnded ? stored.state : .pending
            member.result = stored.result
            member.error = stored.error
            return member
        }
        var group = Group(
            members: members, concurrency: settings.concurrency, timeout: settings.timeoutNanos,
            deadline: settings.deadline.map(now.instant(at:)), onComplete: settings.onComplete.map { Box($0.delivery(firstAttempt: now.instant)) })
        group.spawned = counters.spawned.map(JobID.init)
        group.resumeAt = now.instant
        return group
    }
}
