/// Decodes request lines into `Request`s by hand, turning every failure into a wire error.
///
/// One pass over the line finds its structure (`JSONTape`); the operation's fields are then read
/// straight into its spec, with no `Codable` and no Foundation. The codes and messages are the
/// ones Foundation's `JSONDecoder` gave through the spec types' `Codable` conformances, which stay
/// for the client and as the reference of the differential test.
public struct RequestDecoder: Sendable {
    public init() {}

    /// Decodes one line (without its newline).
    public func decode(_ line: [UInt8]) -> Result<Request, RequestDecodingFailure> {
        line.withUnsafeBufferPointer { bytes in
            let object: WireObject
            let id: RequestID
            do throws(WireDecodingFailure) {
                let tape: JSONTape
                do { tape = try JSONTape(scanning: bytes) } catch { throw .corrupt }
                let values = WireValues(bytes: bytes, tape: tape)
                guard values.kind(0) == .object else { throw .notObject }
                object = try WireObject(values, entry: 0)
                id = try object.requestID("id")
            } catch {
                // Foundation read the top-level keys and the id before its own error boundary,
                // where any bad value became "not a valid JSON object".
                if case .corruptValue = error { return .failure(RequestDecodingFailure(id: nil, error: WireError(.corrupt))) }
                return .failure(RequestDecodingFailure(id: nil, error: WireError(error)))
            }
            do throws(WireDecodingFailure) {
                let opName = try object.string("op")
                guard let operation = Operation(rawValue: opName) else {
                    throw .wire(WireError(.unknownOperation, "unknown operation '\(opName)'"))
                }
                if let extra = Self.unknownField(in: object, for: operation) {
                    throw .wire(WireError(.unknownField, "'\(opName)' takes no field '\(extra)'"))
                }
                return .success(Request(id: id, body: try RequestBody(wire: object, operation: operation)))
            } catch {
                return .failure(RequestDecodingFailure(id: id, error: WireError(error)))
            }
        }
    }

    /// The first field, in sorted order, that `operation` does not take.
    private static func unknownField(in object: WireObject, for operation: Operation) -> String? {
        object.firstKey(notIn: permittedFields[operation.index])
    }

    /// Each operation's fields, with `id` and `op`, by `Operation.index`: the names the Codable
    /// reference takes.
    private static let permittedFields: [[String]] = Operation.allCases.map { operation -> [String] in
        func fields<Key: CodingKey & CaseIterable>(_: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }
        let names: [String] =
            switch operation {
            case .hello: fields(HelloRequest.CodingKeys.self)
            case .registerCountdown: fields(CountdownSpec.CodingKeys.self)
            case .registerPoll: fields(PollSpec.CodingKeys.self)
            case .submit: SubmitSpec.fieldNames
            case .registerGroup: fields(GroupSpec.CodingKeys.self)
            case .retry: fields(RetryRequest.CodingKeys.self)
            case .delete: fields(DeleteRequest.CodingKeys.self)
            case .cancel: fields(JobSelector.CodingKeys.self)
            case .watch, .pause, .resume: JobSelector.selectorFields
            case .status: fields(StatusRequest.CodingKeys.self)
            case .list: fields(ListRequest.CodingKeys.self)
            case .unwatch: fields(UnwatchRequest.CodingKeys.self)
            case .wait: fields(WaitRequest.CodingKeys.self)
            case .metrics: fields(MetricsRequest.CodingKeys.self)
            case .registerSchedule: fields(ScheduleSpec.CodingKeys.self)
            }
        return ["id", "op"] + names
    }
}

extension Operation {
    /// The operation's position in `allCases`, for tables built once per operation.
    var index: Int {
        switch self {
        case .hello: 0
        case .registerCountdown: 1
        case .registerPoll: 2
        case .submit: 3
        case .registerGroup: 4
        case .retry: 5
        case .delete: 6
        case .cancel: 7
        case .status: 8
        case .list: 9
        case .watch: 10
        case .unwatch: 11
        case .wait: 12
        case .metrics: 13
        case .registerSchedule: 14
        case .pause: 15
        case .resume: 16
        }
    }
}
