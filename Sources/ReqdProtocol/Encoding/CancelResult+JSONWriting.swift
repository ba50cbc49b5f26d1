extension CancelResult: JSONWritable {
    /// Writes the ids a cancel ended, and their count.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.strings("cancelled", cancelled)
        writer.integer("count", count)
        writer.bool("truncated", truncated)
        writer.endObject()
    }
}
