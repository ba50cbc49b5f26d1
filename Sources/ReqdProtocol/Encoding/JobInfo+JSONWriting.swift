extension JobInfo: JSONWritable {
    /// Writes a job's view, leaving out the fields it has no value for.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("id", id)
        writer.string("kind", kind.rawValue)
        writer.string("state", state.rawValue)
        writer.integer("owner", owner)
        writer.string("key", key)
        writer.string("scope", scope)
        writer.bool("durable", durable)
        writer.value("created_at", createdAt)
        writer.value("ended_at", endedAt)
        writer.string("reason", reason?.rawValue)
        writer.string("replaced_by", replacedBy)
        writer.value("deadline", deadline)
        writer.integer("remaining_ms", remainingMs)
        writer.integer("tick_ms", tickMs)
        writer.double("late_by_ms", lateByMs)
        writer.value("on_expire", onExpire)
        writer.value("poll", poll)
        writer.value("request", request)
        writer.value("group", group)
        writer.value("schedule", schedule)
        writer.bool("bound_to_connection", boundToConnection)
        writer.value("result", result)
        writer.string("error", error)
        if let attempts { writer.array("attempts", attempts) }
        writer.endObject()
    }
}
