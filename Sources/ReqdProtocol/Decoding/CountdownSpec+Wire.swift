extension CountdownSpec {
    /// Reads `register-countdown`'s fields, in the order the Codable reference reads them.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            key: try object.optionalString("key"), durationMs: try object.optionalInt64("duration_ms"),
            until: try object.optionalWallTime("until"), tickMs: try object.optionalInt64("tick_ms"),
            scope: try object.optionalString("scope"), ephemeral: try object.optionalBool("ephemeral"),
            bindConnection: try object.optionalBool("bind_connection"),
            onExpire: try object.optionalObject("on_expire", RequestSpec.init(wire:)), follow: try object.optionalBool("follow"))
    }
}
