extension HTTPResult: JSONWritable {
    /// Writes the answer a job ended with.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("status", status)
        writer.strings("headers", headers)
        writer.string("body", body)
        writer.bool("truncated", truncated)
        writer.endObject()
    }
}
