import ReqdProtocol

extension AttemptInfo: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            number: try object.int("number"), startedAt: try object.wallTime("started_at"), durationMs: try object.double("duration_ms"), address: try object.optionalString("address"),
            status: try object.optionalInt("status"), error: try object.optionalString("error"),
            headers: try object.optionalStrings("headers"), headersTruncated: try object.optionalBool("headers_truncated"))
    }
}
