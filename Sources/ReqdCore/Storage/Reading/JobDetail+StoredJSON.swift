import ReqdProtocol

extension JobDetail: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            poll: try object.optionalObject("poll", PollRecord.init(stored:)),
            request: try object.optionalObject("request", DeliveryRecord.init(stored:)),
            group: try object.optionalObject("group", GroupRecord.init(stored:)),
            schedule: try object.optionalObject("schedule", ScheduleRecord.init(stored:)),
            onExpire: try object.optionalObject("on_expire", DeliverySettings.init(stored:)),
            spawned: try object.optionalString("spawned"), result: try object.optionalObject("result", HTTPResult.init(stored:)),
            error: try object.optionalString("error"))
    }
}
