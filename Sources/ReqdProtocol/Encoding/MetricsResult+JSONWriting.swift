extension MetricsResult: JSONWritable {
    /// Writes the `metrics` result.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("text", text)
        writer.key("jobs")
        writer.counts(jobs)
        writer.integer("held_jobs", heldJobs)
        writer.integer("unreachable_targets", unreachableTargets)
        writer.integer("connections", connections)
        writer.array("soonest", soonest)
        writer.array("targets", targets)
        writer.endObject()
    }
}
