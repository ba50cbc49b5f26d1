extension SoonestJob: JSONWritable {
    /// Writes one job due soon.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.value("due_at", dueAt)
        writer.integer("due_in_ms", dueInMs)
        writer.value("job", job)
        writer.endObject()
    }
}
