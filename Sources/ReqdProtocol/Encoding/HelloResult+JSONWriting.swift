extension HelloResult: JSONWritable {
    /// Writes the `hello` result.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("protocol", protocolVersion)
        writer.string("server", server)
        writer.string("version", version)
        writer.integer("uid", uid)
        writer.endObject()
    }
}
