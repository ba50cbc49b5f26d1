import ReqdProtocol

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
