extension RequestSpec {
    /// Reads a request object nested in the line (`on_expire`, a group's member, ...): a key that
    /// a request does not take is refused, as the top level refuses a field its operation does
    /// not take, so that a typo never passes silently.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        if let extra = object.firstKey(notIn: Self.fieldNames) { throw .unknownKey(path: object.path, key: extra) }
        try self.init(fields: object)
    }

    /// Reads the fields of a request, in the order the Codable reference reads them, leaving any
    /// other key to the caller: `submit`'s line holds the request's fields beside its own.
    init(fields object: WireObject) throws(WireDecodingFailure) {
        self.init(
            method: try object.optionalString("method"), url: try object.string("url"),
            headers: try object.optionalStrings("headers"), body: try object.optionalString("body"),
            bodyBase64: try object.optionalString("body_base64"), maxAttempts: try object.optionalInt("max_attempts"),
            backoffMinMs: try object.optionalInt64("backoff_min_ms"), backoffMaxMs: try object.optionalInt64("backoff_max_ms"),
            retryOn: try object.optionalStrings("retry_on"))
    }
}
