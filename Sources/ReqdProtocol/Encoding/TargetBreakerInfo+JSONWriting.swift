extension TargetBreakerInfo: JSONWritable {
    /// Writes a target's breaker state and figures.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("state", state.rawValue)
        writer.value("since", since)
        writer.value("open_until", openUntil)
        writer.integer("requests", requests)
        writer.integer("failures", failures)
        writer.double("failure_ratio", failureRatio)
        writer.integer("min_requests", minRequests)
        writer.integer("window_ms", windowMs)
        writer.integer("open_for_ms", openForMs)
        writer.endObject()
    }
}
