/// The caller's use of its per-user limits (`limits.*`), in the daemon summary.
public struct LimitsSummary: Codable, Sendable, Hashable {
    /// Whose use this is: the caller's uid.
    public var uid: UInt32
    /// False for root when `limits.apply_to_root` is off: the figures are shown, nothing is enforced.
    public var applies: Bool
    public var activeJobs: LimitUsage
    public var connections: LimitUsage
    public var requestsInFlight: LimitUsage
    /// Jobs waiting for one of the caller's request slots.
    public var requestsWaiting: Int
    public var retainedJobs: LimitUsage

    public init(
        uid: UInt32, applies: Bool, activeJobs: LimitUsage, connections: LimitUsage, requestsInFlight: LimitUsage,
        requestsWaiting: Int, retainedJobs: LimitUsage
    ) {
        self.uid = uid
        self.applies = applies
        self.activeJobs = activeJobs
        self.connections = connections
        self.requestsInFlight = requestsInFlight
        self.requestsWaiting = requestsWaiting
        self.retainedJobs = retainedJobs
    }

    enum CodingKeys: String, CodingKey {
        case uid, applies
        case activeJobs = "active_jobs"
        case connections
        case requestsInFlight = "requests_in_flight"
        case requestsWaiting = "requests_waiting"
        case retainedJobs = "retained_jobs"
    }
}
