/// An event line on the wire: the event plus the id of the `watch` (or `follow`) request it belongs to.
public struct EventMessage: Codable, Sendable, Hashable {
    public var watch: RequestID
    public var event: JobEvent

    public init(watch: RequestID, event: JobEvent) {
        self.watch = watch
        self.event = event
    }

    enum CodingKeys: String, CodingKey { case watch }

    public init(from decoder: any Decoder) throws {
        watch = try decoder.container(keyedBy: CodingKeys.self).decode(RequestID.self, forKey: .watch)
        event = try JobEvent(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(watch, forKey: .watch)
        try event.encode(to: encoder)
    }
}
