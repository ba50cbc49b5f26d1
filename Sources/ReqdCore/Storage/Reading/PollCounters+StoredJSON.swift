import ReqdProtocol

extension PollCounters: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            polls: try object.int("polls"), failures: try object.int("failures"), progress: try object.optionalDouble("progress"),
            lastStatus: try object.optionalInt("last_status"), lastError: try object.optionalString("last_error"),
            lastStart: try object.optionalWallTime("last_start"))
    }
}
