extension ScheduleInfo: JSONWritable {
    /// Writes a schedule's view, leaving out the fields it has no value for.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("expression", expression)
        writer.string("zone", zone)
        writer.string("overlap", overlap.rawValue)
        writer.string("catch_up", catchUp.rawValue)
        writer.integer("randomized_delay_ms", randomizedDelayMs)
        writer.bool("paused", paused)
        writer.array("next", next)
        writer.value("last_elapse", lastElapse)
        writer.double("last_late_by_ms", lastLateByMs)
        writer.integer("runs", runs)
        writer.integer("skipped", skipped)
        writer.integer("missed", missed)
        writer.string("running", running)
        writer.string("last_run", lastRun)
        writer.string("last_outcome", lastOutcome?.rawValue)
        writer.value("request", request)
        writer.endObject()
    }
}
