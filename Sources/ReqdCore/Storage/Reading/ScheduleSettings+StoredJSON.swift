import ReqdProtocol

extension ScheduleSettings: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            calendar: try object.optionalString("calendar"), cron: try object.optionalString("cron"),
            everyNanos: try object.optionalInt64("every_ns"), anchor: try object.optionalWallTime("anchor"), tz: try object.optionalString("tz"),
            overlap: try object.case("overlap", of: ScheduleOverlap.self), catchUp: try object.case("catch_up", of: ScheduleCatchUp.self),
            randomizedDelayNanos: try object.int64("randomized_delay_ns"), fixedDelay: try object.bool("fixed_delay"),
            request: try object.optionalObject("schedule_request", as: DeliverySettings.self))
    }
}
