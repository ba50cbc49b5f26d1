extension WireError: JSONWritable {
    /// Writes `code`, `message` and, for `bad_condition`, `column`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("code", code.rawValue)
        writer.string("message", message)
        writer.integer("column", column)
        writer.endObject()
    }
}
