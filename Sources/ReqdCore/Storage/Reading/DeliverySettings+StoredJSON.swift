import ReqdProtocol

extension DeliverySettings: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            request: try object.object("request", as: HTTPRequestSpec.self), maxAttempts: try object.int("max_attempts"),
            backoffMinNanos: try object.int64("backoff_min_ns"), backoffMaxNanos: try object.int64("backoff_max_ns"),
            parent: try object.optionalString("parent"), retryOn: try object.optionalStrings("retry_on"),
            maxRetryAfterNanos: try object.optionalInt64("max_retry_after_ns"),
            reports: try object.optionalObjectsByKey("reports", DeliverySettings.init(stored:)))
    }
}
