extension ReplyBody: JSONWritable {
    /// Writes the result object.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .hello(let value): value.write(to: &writer)
        case .registered(let value): value.write(to: &writer)
        case .cancelled(let value): value.write(to: &writer)
        case .summary(let value): value.write(to: &writer)
        case .job(let value):
            writer.beginObject()
            writer.value("job", value.job)
            writer.endObject()
        case .jobs(let value): value.write(to: &writer)
        case .watching(let value): value.write(to: &writer)
        case .unwatched(let value):
            writer.beginObject()
            writer.integer("removed", value.removed)
            writer.endObject()
        case .metrics(let value): value.write(to: &writer)
        }
    }
}
