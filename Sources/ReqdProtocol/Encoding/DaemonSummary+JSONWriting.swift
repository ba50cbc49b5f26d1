extension DaemonSummary: JSONWritable {
    /// Writes the daemon summary, its job counts sorted by name.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("version", version)
        writer.integer("protocol", protocolVersion)
        writer.integer("pid", pid)
        writer.value("started_at", startedAt)
        writer.integer("uptime_ms", uptimeMs)
        writer.key("jobs")
        writer.counts(jobs)
        writer.integer("connections", connections)
        writer.integer("max_connections", maxConnections)
        writer.value("network", network)
        writer.value("limits", limits)
        if let targets { writer.array("targets", targets) }
        writer.endObject()
    }
}
