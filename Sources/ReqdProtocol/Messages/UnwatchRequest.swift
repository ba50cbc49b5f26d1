/// `unwatch`: ends the subscriptions that a `watch` (or `follow`) with this id started.
public struct UnwatchRequest: Codable, Sendable, Hashable {
    public var watch: RequestID

    public init(watch: RequestID) { self.watch = watch }

    enum CodingKeys: String, CodingKey, CaseIterable { case watch }
}
