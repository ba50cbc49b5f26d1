import ReqdProtocol

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
