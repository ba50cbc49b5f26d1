import Foundation
@testable import ReqdProtocol

/// The Foundation decoder that served the daemon before hand decoding, kept as the reference the
/// differential test compares `RequestDecoder` against: `JSONDecoder` over the spec types'
/// `Codable` conformances, with its `DecodingError`s classified as they were.
struct FoundationRequestDecoder {
    private let decoder = JSONDecoder()

    func decode(_ line: [UInt8]) -> Result<Request, RequestDecodingFailure> {
        do {
            return .success(try decoder.decode(Request.self, from: Data(line)))
        } catch let failure as RequestDecodingFailure {
            return .failure(failure)
        } catch {
            return .failure(RequestDecodingFailure(id: nil, error: WireError(decoding: error)))
        }
    }
}

extension Request: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let id = try container.decode(RequestID.self, forKey: AnyCodingKey("id"))
        let body: RequestBody
        do {
            let opName = try container.decode(String.self, forKey: AnyCodingKey("op"))
            guard let operation = ReqdProtocol.Operation(rawValue: opName) else {
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
            case .registerSchedule: body = .registerSchedule(try ScheduleSpec(from: decoder))
            case .pause: body = .pause(try JobSelector(from: decoder))
            case .resume: body = .resume(try JobSelector(from: decoder))
            }
        } catch {
            throw RequestDecodingFailure(id: id, error: WireError(decoding: error))
        }
        self.init(id: id, body: body)
    }

    /// Each operation's fields, with `id` and `op`; built once, as every request line is checked against them.
    private static let permittedFields: [ReqdProtocol.Operation: Set<String>] = {
        func fields<Key: CodingKey & CaseIterable>(_: Key.Type) -> Set<String> {
            Set(Key.allCases.map(\.stringValue) + ["id", "op"])
        }
        return [
            .hello: fields(HelloRequest.CodingKeys.self), .registerCountdown: fields(CountdownSpec.CodingKeys.self),
            .registerPoll: fields(PollSpec.CodingKeys.self), .submit: Set(SubmitSpec.fieldNames + ["id", "op"]),
            .registerGroup: fields(GroupSpec.CodingKeys.self), .retry: fields(RetryRequest.CodingKeys.self),
            .delete: fields(DeleteRequest.CodingKeys.self),
            .cancel: fields(JobSelector.CodingKeys.self), .status: fields(StatusRequest.CodingKeys.self),
            .list: fields(ListRequest.CodingKeys.self), .watch: Set(["job", "key", "scope", "id", "op"]),
            .unwatch: fields(UnwatchRequest.CodingKeys.self), .wait: fields(WaitRequest.CodingKeys.self),
            .metrics: fields(MetricsRequest.CodingKeys.self), .registerSchedule: fields(ScheduleSpec.CodingKeys.self),
            .pause: Set(["job", "key", "scope", "id", "op"]), .resume: Set(["job", "key", "scope", "id", "op"]),
        ]
    }()
}

extension WireError {
    /// Classifies a decoding failure as a stable wire error.
    init(decoding error: any Error) {
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
