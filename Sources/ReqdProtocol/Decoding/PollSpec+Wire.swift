extension PollSpec {
    /// Reads `register-poll`'s fields, in the order the Codable reference reads them.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            url: try object.string("url"), method: try object.optionalString("method"),
            headers: try object.optionalStrings("headers"), body: try object.optionalString("body"),
            bodyBase64: try object.optionalString("body_base64"), everyMs: try object.int64("every_ms"),
            until: try object.string("until"), progress: try object.optionalString("progress"),
            timeoutMs: try object.optionalInt64("timeout_ms"), maxPolls: try object.optionalInt("max_polls"),
            maxFailures: try object.optionalInt("max_failures"), key: try object.optionalString("key"),
            scope: try object.optionalString("scope"), ephemeral: try object.optionalBool("ephemeral"),
            bindConnection: try object.optionalBool("bind_connection"), follow: try object.optionalBool("follow"))
    }
}
