extension WatchResult: JSONWritable {
    /// Writes a `watch` result.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.value("job", job)
        writer.string("scope", scope)
        writer.bool("streaming", streaming)
        writer.endObject()
    }
}
