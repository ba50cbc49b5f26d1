/// A target's circuit breaker settings, filled in: it opens when at least `failureRatio` of at
/// least `minRequests` requests that ended in the last `windowNanos` failed, and stays open
/// `openForNanos` before one probe goes.
public struct BreakerSettings: Sendable, Hashable {
    /// The share of failed requests, above 0 and at most 1, that opens it.
    public var failureRatio: Double
    /// The requests that must have ended in the window before it may open.
    public var minRequests: Int
    /// The window, in whole seconds of at least one.
    public var windowNanos: Int64
    /// How long it stays open before one probe goes.
    public var openForNanos: Int64

    /// What a table that sets only `breaker_failure_ratio` gets: 20 requests, a minute, 30 s.
    public static let defaultMinRequests = 20
    public static let defaultWindowNanos: Int64 = 60_000_000_000
    public static let defaultOpenForNanos: Int64 = 30_000_000_000

    /// Settings with the defaults for what is left out.
    public init(
        failureRatio: Double, minRequests: Int = Self.defaultMinRequests, windowNanos: Int64 = Self.defaultWindowNanos,
        openForNanos: Int64 = Self.defaultOpenForNanos
    ) {
        self.failureRatio = failureRatio
        self.minRequests = minRequests
        self.windowNanos = windowNanos
        self.openForNanos = openForNanos
    }
}
