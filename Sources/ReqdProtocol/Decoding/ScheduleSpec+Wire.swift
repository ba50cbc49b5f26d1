extension ScheduleSpec {
    /// Reads `register-schedule`'s fields, in the order the Codable reference reads them.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            calendar: try object.optionalString("calendar"), cron: try object.optionalString("cron"),
            everyMs: try object.optionalInt64("every_ms"), tz: try object.optionalString("tz"),
            request: try object.optionalObject("request", RequestSpec.init(wire:)),
            overlap: try object.optionalCase("overlap", of: ScheduleOverlap.self),
            catchUp: try object.optionalCase("catch_up", of: ScheduleCatchUp.self),
            randomizedDelayMs: try object.optionalInt64("randomized_delay_ms"), fixedDelay: try object.optionalBool("fixed_delay"),
            key: try object.optionalString("key"), scope: try object.optionalString("scope"),
            ephemeral: try object.optionalBool("ephemeral"), bindConnection: try object.optionalBool("bind_connection"),
            follow: try object.optionalBool("follow"))
    }
}
