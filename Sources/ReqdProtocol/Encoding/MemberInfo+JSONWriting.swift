extension MemberInfo: JSONWritable {
    /// Writes one group member.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("index", index)
        writer.string("method", method)
        writer.string("url", url)
        writer.string("state", state.rawValue)
        writer.integer("attempts", attempts)
        writer.integer("status", status)
        writer.string("body", body)
        writer.bool("truncated", truncated)
        writer.string("error", error)
        writer.endObject()
    }
}
