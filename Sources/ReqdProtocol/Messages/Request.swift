/// One request line: a client-chosen `id`, an `op`, and that operation's fields, all at the top level.
public struct Request: Sendable, Hashable {
    /// Echoed in the reply.
    public var id: RequestID
    /// The operation and its fields.
    public var body: RequestBody

    public init(id: RequestID, body: RequestBody) {
        self.id = id
        self.body = body
    }
}

extension Request: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(id, forKey: AnyCodingKey("id"))
        try container.encode(body.operation.rawValue, forKey: AnyCodingKey("op"))
        switch body {
        case .hello(let fields): try fields.encode(to: encoder)
        case .registerCountdown(let fields): try fields.encode(to: encoder)
        case .registerPoll(let fields): try fields.encode(to: encoder)
        case .submit(let fields): try fields.encode(to: encoder)
        case .registerGroup(let fields): try fields.encode(to: encoder)
        case .retry(let fields): try fields.encode(to: encoder)
        case .delete(let fields): try fields.encode(to: encoder)
        case .cancel(let fields): try fields.encode(to: encoder)
        case .status(let fields): try fields.encode(to: encoder)
        case .list(let fields): try fields.encode(to: encoder)
        case .watch(let fields): try fields.encode(to: encoder)
        case .unwatch(let fields): try fields.encode(to: encoder)
        case .wait(let fields): try fields.encode(to: encoder)
        case .metrics(let fields): try fields.encode(to: encoder)
        case .registerSchedule(let fields): try fields.encode(to: encoder)
        case .pause(let fields), .resume(let fields): try fields.encode(to: encoder)
        }
    }
}
