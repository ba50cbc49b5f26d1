extension LimitUsage: JSONWritable {
    /// Writes one limit and its use.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("used", used)
        writer.integer("limit", limit)
        writer.endObject()
    }
}
