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

extension Request: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let id = try container.decode(RequestID.self, forKey: AnyCodingKey("id"))
        do {
            let opName = try container.decode(String.self, forKey: AnyCodingKey("op"))
            guard let operation = Operation(rawValue: opName) else {
                throw WireError(.unknownOperation, "unknown operation '\(opName)'")
            }
            let permitted = Self.permittedFields[operation] ?? []
            if let extra = container.allKeys.lazy.map(\.stringValue).filter({ !permitted.contains($0) }).min() {
                throw WireError(.unknownField, "'\(opName)' takes no field '\(extra)'")
            }
            switch operation {
            case .hello: body = .hello(try HelloRequest(from: decoder))
            case .registerCountdown: body = .registerCountdown(try CountdownSpec(from: decoder))
            case .registerPoll: body = .registerPoll(try PollSpec(from: decoder))
            case .submit: body = .submit(try SubmitSpec(from: decoder))
            case .registerGroup: body = .registerGroup(try GroupSpec(from: decoder))
            case .retry: body = .retry(try RetryRequest(from: decoder))
            case .delete: body = .delete(try DeleteRequest(from: decoder))
            case .cancel: body = .cancel(try JobSelector(from: decoder))
            case .status: body = .status(try StatusRequest(from: decoder))
            case .list: body = .list(try ListRequest(from: decoder))
            case .watch: body = .watch(try JobSelector(from: decoder))
            case .unwatch: body = .unwatch(try UnwatchRequest(from: decoder))
            case .wait: body = .wait(try WaitRequest(from: decoder))
            case .metrics: body = .metrics(try MetricsRequest(from: decoder))
            }
        } catch {
            throw RequestDecodingFailure(id: id, error: WireError(decoding: error))
        }
        self.id = id
    }

    /// Each operation's fields, with `id` and `op`; built once, as every request line is checked against them.
    private static let permittedFields: [Operation: Set<String>] = {
        func fields<Key: CodingKey & CaseIterable>(_: Key.Type) -> Set<String> {
            Set(Key.allCases.map(\.stringValue) + ["id", "op"])
        }
        return [
            .hello: fields(HelloRequest.CodingKeys.self), .registerCountdown: fields(CountdownSpec.CodingKeys.self),
            .registerPoll: fields(PollSpec.CodingKeys.self), .submit: Set(SubmitSpec.fieldNames + ["id", "op"]),
            .registerGroup: fields(GroupSpec.CodingKeys.self), .retry: fields(RetryRequest.CodingKeys.self),
            .delete: fields(DeleteRequest.CodingKeys.self),
            .cancel: fields(JobSelector.CodingKeys.self), .status: fields(StatusRequest.CodingKeys.self),
            .list: fields(ListRequest.CodingKeys.self), .watch: fields(JobSelector.CodingKeys.self),
            .unwatch: fields(UnwatchRequest.CodingKeys.self), .wait: fields(WaitRequest.CodingKeys.self),
            .metrics: fields(MetricsRequest.CodingKeys.self),
        ]
    }()

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
        }
    }
}
