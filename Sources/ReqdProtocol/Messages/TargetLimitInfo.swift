/// One target's limits and live state, in `status` with `targets` (`reqd-client status --targets`).
///
/// A target is a host and port. Listed are the targets with requests in flight, waiting, sent in
/// the last minute, paused, or with a breaker not closed; the caller's own unless root.
public struct TargetLimitInfo: Codable, Sendable, Hashable {
    /// `host:port`, such as `api.example.com:443`.
    public var target: String
    /// The `[targets."…"]` table that applies, or `default`.
    public var table: String
    /// The rate as configured (`20/s`); nil when none is.
    public var rate: String?
    public var burst: Int
    public var concurrency: Int
    /// Tokens in the bucket now; nil without a rate.
    public var tokens: Int?
    public var inFlight: Int
    /// Jobs waiting for a token or a free request slot.
    public var waiting: Int
    /// Until when a `Retry-After` paused the target.
    public var pausedUntil: WallTime?
    public var requestsLastMinute: Int
    /// Why its last failed request failed, while its requests fail.
    public var lastError: String?
    /// Its circuit breaker; nil when none is configured.
    public var breaker: TargetBreakerInfo?

    public init(
        target: String, table: String, rate: String?, burst: Int, concurrency: Int, tokens: Int?, inFlight: Int, waiting: Int,
        pausedUntil: WallTime?, requestsLastMinute: Int, lastError: String?, breaker: TargetBreakerInfo? = nil
    ) {
        self.target = target
        self.table = table
        self.rate = rate
        self.burst = burst
        self.concurrency = concurrency
        self.tokens = tokens
        self.inFlight = inFlight
        self.waiting = waiting
        self.pausedUntil = pausedUntil
        self.requestsLastMinute = requestsLastMinute
        self.lastError = lastError
        self.breaker = breaker
    }

    enum CodingKeys: String, CodingKey {
        case target, table, rate, burst, concurrency, tokens
        case inFlight = "in_flight"
        case waiting
        case pausedUntil = "paused_until"
        case requestsLastMinute = "requests_last_minute"
        case lastError = "last_error"
        case breaker
    }
}
