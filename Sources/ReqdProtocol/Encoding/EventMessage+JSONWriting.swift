extension EventMessage: JSONWritable {
    /// Writes the event line's object: `watch`, then the event's fields.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.value("watch", watch)
        event.writeMembers(to: &writer)
        writer.endObject()
    }
}
