extension DaemonSummary {
    /// Writes the summary with its job counts sorted by kind and by state, so that two identical
    /// summaries are the same text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(protocolVersion, forKey: .protocolVersion)
        try container.encodeIfPresent(pid, forKey: .pid)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(uptimeMs, forKey: .uptimeMs)
        try container.encode(SortedJSONObject(members: jobs.mapValues { SortedJSONObject(members: $0) }), forKey: .jobs)
        try container.encode(connections, forKey: .connections)
        try container.encodeIfPresent(maxConnections, forKey: .maxConnections)
        try container.encode(network, forKey: .network)
        try container.encodeIfPresent(limits, forKey: .limits)
        try container.encodeIfPresent(targets, forKey: .targets)
    }
}
