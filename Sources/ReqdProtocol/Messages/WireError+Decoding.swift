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
