extension RegisterResult: JSONWritable {
    /// Writes a registration's result: the job, and what it replaced or deduplicated.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.value("job", job)
        writer.string("replaced", replaced)
        writer.bool("deduplicated", deduplicated)
        writer.endObject()
    }
}
