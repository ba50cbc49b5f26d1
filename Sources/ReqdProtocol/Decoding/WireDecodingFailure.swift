/// Why a request line could not be read into its operation's fields, in the terms Foundation's
/// `DecodingError` uses, so that each maps to the same wire error the Codable decoder gave. A
/// stored document that fails is simply not read, as `JSONDecoder` would not read it.
package enum WireDecodingFailure: Error {
    /// The line is not JSON.
    case corrupt
    /// A value the request reads is not valid JSON (a bad escape, invalid UTF-8), or a number that
    /// does not fit its field. Foundation gave these a message of their own.
    case corruptValue
    /// The line is JSON but not an object.
    case notObject
    /// A required field is missing; `path` leads to the object that lacks it.
    case keyNotFound(path: [String], key: String)
    /// A field holds the wrong kind of value, or null where a value is required.
    case wrongType(path: [String], description: String)
    /// A field's value has the right kind but is not one the field takes.
    case invalid(path: [String], description: String)
    /// A request object nested in the line (`on_expire`, a group's member...) holds a key that a
    /// request does not take; `path` leads to the object.
    case unknownKey(path: [String], key: String)
    /// A failure already in wire terms.
    case wire(WireError)
}

extension WireError {
    /// The wire error for a decoding failure: the one place where decoding failures get their codes
    /// and messages.
    init(_ failure: WireDecodingFailure) {
        switch failure {
        case .corrupt: self = WireError(.badJSON, "the line is not a valid JSON object")
        case .corruptValue: self = WireError(.badJSON, "the line is not valid JSON")
        case .notObject: self = WireError(.badJSON, "the line is not a JSON object")
        case .keyNotFound(let path, let key):
            self = WireError(.missingField, "missing field '\((path + [key]).joined(separator: "."))'")
        case .wrongType(let path, let description):
            self = WireError(.badField, "field '\(path.joined(separator: "."))' has the wrong type: \(description)")
        case .invalid(let path, let description):
            self = WireError(.badField, "field '\(path.joined(separator: "."))' is invalid: \(description)")
        case .unknownKey(let path, let key):
            let object = path.isEmpty ? "a request object" : "'\(path.joined(separator: "."))'"
            self = WireError(.unknownField, "\(object) takes no field '\(key)'")
        case .wire(let error): self = error
        }
    }
}
