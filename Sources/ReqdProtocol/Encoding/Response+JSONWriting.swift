extension Response: JSONWritable {
    /// Writes the reply line's object: `id`, `ok`, and `result` or `error`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        if let id { id.write(to: &writer) } else { writer.null() }
        switch outcome {
        case .failure(let error):
            writer.bool("ok", false)
            writer.value("error", error)
        case .success(let body):
            writer.bool("ok", true)
            writer.value("result", body)
        }
        writer.endObject()
    }
}
