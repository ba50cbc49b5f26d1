extension OnExpireInfo: JSONWritable {
    /// Writes a countdown's `on_expire` request.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("method", method)
        writer.string("url", url)
        writer.strings("header_names", headerNames)
        writer.string("job", job)
        writer.endObject()
    }
}
