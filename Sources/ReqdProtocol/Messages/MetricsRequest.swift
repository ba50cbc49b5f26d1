/// `metrics`: the daemon's counters and histograms, with what a live view shows beside them.
public struct MetricsRequest: Codable, Sendable, Hashable {
    /// How many of the caller's jobs whose next deadline comes soonest to include (default 10, at most 100; 0 for none).
    public var soonest: Int?

    public init(soonest: Int? = nil) { self.soonest = soonest }

    enum CodingKeys: String, CodingKey, CaseIterable { case soonest }
}
