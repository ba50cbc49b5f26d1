extension TargetLimitInfo: JSONWritable {
    /// Writes one target's limits and live state.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("target", target)
        writer.string("table", table)
        writer.string("rate", rate)
        writer.integer("burst", burst)
        writer.integer("concurrency", concurrency)
        writer.integer("tokens", tokens)
        writer.integer("in_flight", inFlight)
        writer.integer("waiting", waiting)
        writer.value("paused_until", pausedUntil)
        writer.integer("requests_last_minute", requestsLastMinute)
        writer.string("last_error", lastError)
        writer.value("breaker", breaker)
        writer.endObject()
    }
}
