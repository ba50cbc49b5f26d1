import ReqdProtocol

extension ScheduleCounters: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            due: try object.optionalWallTime("due"), delayNanos: try object.int64("delay_ns"),
            lastElapse: try object.optionalWallTime("last_elapse"), lastLateByNanos: try object.optionalInt64("last_late_by_ns"),
            runs: try object.int("runs"), skipped: try object.int("skipped"), missed: try object.int("missed"),
            running: try object.optionalString("running"), lastRun: try object.optionalString("last_run"),
            lastOutcome: try object.optionalCase("last_outcome", of: JobState.self), queued: try object.bool("queued"),
            paused: try object.bool("paused"))
    }
}
