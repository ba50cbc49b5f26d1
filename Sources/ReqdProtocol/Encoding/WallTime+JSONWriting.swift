extension WallTime: JSONWritable {
    /// Writes the time as RFC 3339 text.
    public func write(to writer: inout JSONWriter) {
        writer.string(rfc3339)
    }
}
