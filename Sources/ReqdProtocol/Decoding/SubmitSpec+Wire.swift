extension SubmitSpec {
    /// Reads `submit`'s fields: the request's at the top level, then the job's.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            request: try RequestSpec(fields: object), dedupeWindowMs: try object.optionalInt64("dedupe_window_ms"),
            dedupeHeaders: try object.optionalStrings("dedupe_headers"), key: try object.optionalString("key"),
            scope: try object.optionalString("scope"), ephemeral: try object.optionalBool("ephemeral"),
            bindConnection: try object.optionalBool("bind_connection"), follow: try object.optionalBool("follow"),
            onSuccess: try object.optionalObject("on_success", RequestSpec.init(wire:)),
            onFailure: try object.optionalObject("on_failure", RequestSpec.init(wire:)))
    }
}
