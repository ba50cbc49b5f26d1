extension NetworkSummary: JSONWritable {
    /// Writes the network part of the summary.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("state", state.rawValue)
        writer.value("offline_since", offlineSince)
        writer.integer("held_jobs", heldJobs)
        writer.integer("unreachable_targets", unreachableTargets)
        writer.endObject()
    }
}
