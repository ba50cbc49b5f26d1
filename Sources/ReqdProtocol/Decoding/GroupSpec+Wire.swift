extension GroupSpec {
    /// Reads `register-group`'s fields, in the order the Codable reference reads them.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            members: try object.objects("members", RequestSpec.init(wire:)), concurrency: try object.optionalInt("concurrency"),
            timeoutMs: try object.optionalInt64("timeout_ms"),
            onComplete: try object.optionalObject("on_complete", RequestSpec.init(wire:)), key: try object.optionalString("key"),
            scope: try object.optionalString("scope"), ephemeral: try object.optionalBool("ephemeral"),
            bindConnection: try object.optionalBool("bind_connection"), follow: try object.optionalBool("follow"))
    }
}
