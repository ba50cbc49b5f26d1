extension RequestSpec {
    /// Reads the fields of a request from a request line, in the order the Codable reference reads them.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            method: try object.optionalString("method"), url: try object.string("url"),
            headers: try object.optionalStrings("headers"), body: try object.optionalString("body"),
            bodyBase64: try object.optionalString("body_base64"), maxAttempts: try object.optionalInt("max_attempts"),
            backoffMinMs: try object.optionalInt64("backoff_min_ms"), backoffMaxMs: try object.optionalInt64("backoff_max_ms"),
            retryOn: try object.optionalStrings("retry_on"))
    }
}
