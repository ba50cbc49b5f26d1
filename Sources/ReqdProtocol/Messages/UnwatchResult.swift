/// The result of `unwatch`.
public struct UnwatchResult: Codable, Sendable, Hashable {
    public var removed: Int

    public init(removed: Int) { self.removed = removed }
}
