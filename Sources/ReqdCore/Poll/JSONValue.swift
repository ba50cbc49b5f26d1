/// A JSON value, as a poll condition sees a response body.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a JSON document from its UTF-8 bytes; nil when it is not JSON.
    public init?(json bytes: [UInt8]) {
        guard let value = try? JSONParser.document(bytes) else { return nil }
        self = value
    }
}
