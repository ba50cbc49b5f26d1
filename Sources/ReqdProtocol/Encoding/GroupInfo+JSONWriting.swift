extension GroupInfo: JSONWritable {
    /// Writes a group's part of its view.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("concurrency", concurrency)
        writer.integer("timeout_ms", timeoutMs)
        writer.integer("total", total)
        writer.integer("done", done)
        writer.integer("failures", failures)
        writer.array("members", members)
        writer.array("errors", errors)
        writer.string("on_complete_job", onCompleteJob)
        writer.endObject()
    }
}
