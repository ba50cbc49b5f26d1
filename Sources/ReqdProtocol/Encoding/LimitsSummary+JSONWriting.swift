extension LimitsSummary: JSONWritable {
    /// Writes the caller's limits and what it uses of them.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("uid", uid)
        writer.bool("applies", applies)
        writer.value("active_jobs", activeJobs)
        writer.value("connections", connections)
        writer.value("requests_in_flight", requestsInFlight)
        writer.integer("requests_waiting", requestsWaiting)
        writer.value("retained_jobs", retainedJobs)
        writer.endObject()
    }
}
