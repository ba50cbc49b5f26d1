/// A target's circuit breaker settings, filled in: it opens when at least `failureRatio` of at
/// least `minRequests` requests that ended in the last `windowNanos` failed, and stays open
/// `openForNanos` before one probe goes.
public struct BreakerSettings: Sendable, Hashable {
    public var failureRatio: Double
    public var minRequests: Int
    public var windowNanos: Int64
    public var openForNanos: Int64

    /// What a table that sets only `breaker_failure_ratio` gets.
    public static let defaultMinRequests = 20
    public static let defaultWindowNanos: Int64 = 60_000_000_000
    public static let defaultOpenForNanos: Int64 = 30_000_000_000

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
