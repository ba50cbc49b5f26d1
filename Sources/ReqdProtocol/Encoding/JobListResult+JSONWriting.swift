extension JobListResult: JSONWritable {
    /// Writes a `list` result.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("jobs", jobs)
        writer.bool("truncated", truncated)
        writer.string("next", next)
        writer.endObject()
    }
}
