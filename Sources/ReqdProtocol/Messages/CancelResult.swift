/// The result of `cancel`.
public struct CancelResult: Codable, Sendable, Hashable {
    /// The ids of the jobs this request cancelled.
    public var cancelled: [String]
    public var count: Int

    public init(cancelled: [String]) {
        self.cancelled = cancelled
        self.count = cancelled.count
    }
}
