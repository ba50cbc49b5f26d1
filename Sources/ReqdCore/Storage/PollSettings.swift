import ReqdProtocol

/// What a stored poll was registered with, and its time limit on the wall clock.
public struct PollSettings: Sendable, Hashable, Codable {
    public var request: HTTPRequestSpec
    public var everyNanos: Int64
    public var condition: String
    public var progressPointer: String?
    public var timeoutNanos: Int64?
    public var deadline: WallTime?
    public var maxPolls: Int?
    public var maxFailures: Int

    enum CodingKeys: String, CodingKey {
        case request
        case everyNanos = "every_ns"
        case condition
        case progressPointer = "progress_pointer"
        case timeoutNanos = "timeout_ns"
        case deadline
        case maxPolls = "max_polls"
        case maxFailures = "max_failures"
    }
}
