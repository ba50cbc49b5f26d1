/// A target's circuit breaker in `status --targets`: its state and the figures it decides on.
public struct TargetBreakerInfo: Codable, Sendable, Hashable {
    /// Open past its time shows as half-open: the next request to the target goes as the probe.
    public var state: BreakerState
    /// When it last changed state; nil while it has stayed closed.
    public var since: WallTime?
    /// Until when it stays open (then one probe goes).
    public var openUntil: WallTime?
    /// Requests ended in the breaker's window (while closed).
    public var requests: Int
    /// How many of those failed.
    public var failures: Int
    /// The settings: the failure ratio that opens it, over at least `minRequests` requests in the
    /// last `windowMs`; it stays open `openForMs`.
    public var failureRatio: Double
    /// The requests that must have ended in the window before it may open.
    public var minRequests: Int
    /// The window.
    public var windowMs: Int64
    /// How long it stays open before a probe.
    public var openForMs: Int64

    /// A breaker's state and figures.
    public init(
        state: BreakerState, since: WallTime?, openUntil: WallTime?, requests: Int, failures: Int, failureRatio: Double,
        minRequests: Int, windowMs: Int64, openForMs: Int64
    ) {
        self.state = state
        self.since = since
        self.openUntil = openUntil
        self.requests = requests
        self.failures = failures
        self.failureRatio = failureRatio
        self.minRequests = minRequests
        self.windowMs = windowMs
        self.openForMs = openForMs
    }

    enum CodingKeys: String, CodingKey {
        case state, since
        case openUntil = "open_until"
        case requests, failures
        case failureRatio = "failure_ratio"
        case minRequests = "min_requests"
        case windowMs = "window_ms"
        case openForMs = "open_for_ms"
    }
}
