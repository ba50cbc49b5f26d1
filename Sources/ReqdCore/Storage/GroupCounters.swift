import ReqdProtocol

/// Where each member of a stored group is, and the request job its completion started.
public struct GroupCounters: Sendable, Hashable, Codable {
    public var members: [MemberRecord]
    public var spawned: String?

    enum CodingKeys: String, CodingKey {
        case members = "member_states"
        case spawned
    }
}

extension GroupCounters {
    /// Where each of a group's members is, and the request job its completion started.
    init(_ group: Group) {
        self.init(members: group.members.map(MemberRecord.init), spawned: group.spawned?.rawValue)
    }
}
