extension JobEvent {
    /// Writes the event's fields as members of the object the caller opened, leaving out those it
    /// has no value for.
    func writeMembers(to writer: inout JSONWriter) {
        writer.string("event", type.rawValue)
        writer.string("job", job)
        writer.string("kind", kind.rawValue)
        writer.string("key", key)
        writer.string("scope", scope)
        writer.integer("owner", owner)
        writer.value("at", at)
        writer.integer("remaining_ms", remainingMs)
        writer.double("late_by_ms", lateByMs)
        writer.string("reason", reason?.rawValue)
        writer.string("replaced_by", replacedBy)
        writer.integer("polls", polls)
        writer.integer("failures", failures)
        writer.integer("status", status)
        writer.double("progress", progress)
        writer.string("error", error)
        writer.integer("attempt", attempt)
        writer.string("spawned", spawned)
        writer.integer("member", member)
        writer.string("member_state", memberState?.rawValue)
        writer.integer("done", done)
        writer.integer("total", total)
        writer.string("state", state?.rawValue)
        writer.string("run", run?.rawValue)
        writer.integer("missed", missed)
    }
}
