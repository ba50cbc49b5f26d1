import ReqdProtocol

extension DeliveryCounters: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            attempts: try object.int("attempts"), nextAttempt: try object.optionalWallTime("next_attempt"),
            lastStatus: try object.optionalInt("last_status"), lastError: try object.optionalString("last_error"))
    }
}
