/// How much of one per-user limit the caller uses.
public struct LimitUsage: Codable, Sendable, Hashable {
    public var used: Int
    public var limit: Int

    public init(used: Int, limit: Int) {
        self.used = used
        self.limit = limit
    }
}
