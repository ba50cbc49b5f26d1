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

/// The operation a request asks for, with its fields.
public enum RequestBody: Sendable, Hashable {
    case hello(HelloRequest)
    case registerCountdown(CountdownSpec)
    case registerPoll(PollSpec)
    case submit(SubmitSpec)
    case registerGroup(GroupSpec)
    case retry(RetryRequest)
    case cancel(JobSelector)
    case status(StatusRequest)
    case list(ListRequest)
    case watch(JobSelector)
    case unwatch(UnwatchRequest)
    case wait(WaitRequest)

    /// The `op` name of this body.
    public var operation: Operation {
        switch self {
        case .hello: .hello
        case .registerCountdown: .registerCountdown
        case .registerPoll: .registerPoll
        case .submit: .submit
        case .registerGroup: .registerGroup
        case .retry: .retry
        case .cancel: .cancel
        case .status: .status
        case .list: .list
        case .watch: .watch
        case .unwatch: .unwatch
        case .wait: .wait
        }
    }
}

struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
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
            case .cancel: body = .cancel(try JobSelector(from: decoder))
            case .status: body = .status(try StatusRequest(from: decoder))
            case .list: body = .list(try ListRequest(from: decoder))
            case .watch: body = .watch(try JobSelector(from: decoder))
            case .unwatch: body = .unwatch(try UnwatchRequest(from: decoder))
            case .wait: body = .wait(try WaitRequest(from: decoder))
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
            .cancel: fields(JobSelector.CodingKeys.self), .status: fields(StatusRequest.CodingKeys.self),
            .list: fields(ListRequest.CodingKeys.self), .watch: fields(JobSelector.CodingKeys.self),
            .unwatch: fields(UnwatchRequest.CodingKeys.self), .wait: fields(WaitRequest.CodingKeys.self),
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
        case .cancel(let fields): try fields.encode(to: encoder)
        case .status(let fields): try fields.encode(to: encoder)
        case .list(let fields): try fields.encode(to: encoder)
        case .watch(let fields): try fields.encode(to: encoder)
        case .unwatch(let fields): try fields.encode(to: encoder)
        case .wait(let fields): try fields.encode(to: encoder)
        }
    }
}

/// A request line that could not be decoded, with the id when it could be read.
public struct RequestDecodingFailure: Error, Sendable {
    /// The request's id, when the line had a readable one.
    public var id: RequestID?
    /// The error to reply with.
    public var error: WireError
}

extension WireError {
    /// Classifies a decoding failure as a stable wire error.
    public init(decoding error: any Error) {
        if let wire = error as? WireError {
            self = wire
            return
        }
        if let failure = error as? RequestDecodingFailure {
            self = failure.error
            return
        }
        guard let decodingError = error as? DecodingError else {
            self = WireError(.badJSON, "the line is not valid JSON")
            return
        }
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath.map(\.stringValue) + (key.map { [$0.stringValue] } ?? [])
            return keys.joined(separator: ".")
        }
        switch decodingError {
        case .keyNotFound(let key, let context):
            self = WireError(.missingField, "missing field '\(path(context, key))'")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            self = WireError(.badJSON, "the line is not a JSON object")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self = WireError(.badField, "field '\(path(context))' has the wrong type: \(context.debugDescription)")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                self = WireError(.badJSON, "the line is not a valid JSON object")
            } else {
                self = WireError(.badField, "field '\(path(context))' is invalid: \(context.debugDescription)")
            }
        @unknown default:
            self = WireError(.badJSON, "the line could not be decoded")
        }
    }
}
