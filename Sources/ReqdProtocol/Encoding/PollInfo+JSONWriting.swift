extension PollInfo: JSONWritable {
    /// Writes a poll job's part of its view.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("url", url)
        writer.string("method", method)
        writer.strings("header_names", headerNames)
        writer.integer("every_ms", everyMs)
        writer.string("until", until)
        writer.string("progress_pointer", progressPointer)
        writer.integer("timeout_ms", timeoutMs)
        writer.value("deadline", deadline)
        writer.integer("max_polls", maxPolls)
        writer.integer("max_failures", maxFailures)
        writer.integer("polls", polls)
        writer.integer("failures", failures)
        writer.double("progress", progress)
        writer.integer("last_status", lastStatus)
        writer.string("last_error", lastError)
        writer.bool("in_flight", inFlight)
        writer.value("next_poll_at", nextPollAt)
        writer.endObject()
    }
}
