import ReqdProtocol

/// One member of a group: its request and retry policy, where it is, and how it ended.
public struct GroupMember: Sendable, Hashable {
    /// The request, its retry policy and its attempts.
    public var delivery: Delivery
    public var state: MemberState = .pending
    /// The group-wide number of the member's request on the wire, while one is.
    public var wire: UInt32?
    /// Its last answer.
    public var result: HTTPResult?
    /// Why it did not succeed.
    public var error: String?

    /// A member that has not started.
    public init(delivery: Delivery) { self.delivery = delivery }
}
