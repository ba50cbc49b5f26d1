extension AttemptInfo: JSONWritable {
    /// Writes one attempt of a job's attempt log.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("number", number)
        writer.value("started_at", startedAt)
        writer.double("duration_ms", durationMs)
        writer.string("address", address)
        writer.integer("status", status)
        writer.string("error", error)
        writer.strings("headers", headers)
        writer.bool("headers_truncated", headersTruncated)
        writer.endObject()
    }
}
