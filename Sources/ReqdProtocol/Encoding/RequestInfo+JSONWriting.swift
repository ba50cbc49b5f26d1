extension RequestInfo: JSONWritable {
    /// Writes a request job's part of its view.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("url", url)
        writer.string("method", method)
        writer.strings("header_names", headerNames)
        writer.integer("max_attempts", maxAttempts)
        writer.integer("backoff_min_ms", backoffMinMs)
        writer.integer("backoff_max_ms", backoffMaxMs)
        writer.integer("attempts", attempts)
        writer.integer("last_status", lastStatus)
        writer.string("last_error", lastError)
        writer.bool("in_flight", inFlight)
        writer.value("next_attempt_at", nextAttemptAt)
        writer.bool("held", held)
        writer.string("parent", parent)
        writer.endObject()
    }
}
