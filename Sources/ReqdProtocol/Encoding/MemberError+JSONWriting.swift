extension MemberError: JSONWritable {
    /// Writes one member's error.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("index", index)
        writer.string("state", state.rawValue)
        writer.string("error", error)
        writer.endObject()
    }
}
