import ReqdProtocol

extension GroupSettings: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            members: try object.objects("members", as: DeliverySettings.self), concurrency: try object.int("concurrency"),
            timeoutNanos: try object.optionalInt64("timeout_ns"), deadline: try object.optionalWallTime("deadline"),
            onComplete: try object.optionalObject("on_complete", as: DeliverySettings.self))
    }
}
