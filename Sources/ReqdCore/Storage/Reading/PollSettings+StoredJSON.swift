import ReqdProtocol

extension PollSettings: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            request: try object.object("request", as: HTTPRequestSpec.self), everyNanos: try object.int64("every_ns"),
            condition: try object.string("condition"), progressPointer: try object.optionalString("progress_pointer"),
            timeoutNanos: try object.optionalInt64("timeout_ns"), deadline: try object.optionalWallTime("deadline"),
            maxPolls: try object.optionalInt("max_polls"), maxFailures: try object.int("max_failures"))
    }
}
