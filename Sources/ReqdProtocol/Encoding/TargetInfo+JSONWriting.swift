extension TargetInfo: JSONWritable {
    /// Writes one failing or unreachable target.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("target", target)
        writer.string("state", state.rawValue)
        writer.value("since", since)
        writer.integer("failures", failures)
        writer.integer("last_status", lastStatus)
        writer.string("error", error)
        writer.integer("held_jobs", heldJobs)
        writer.endObject()
    }
}
