/// The rate a request's target allows, for the executor to hold the request to at the moment it
/// is written, not only when its token is taken.
///
/// The scheduler's bucket (`TargetLimiter`) counts a token when it gives it out, but a request
/// reaches the wire later by however long the HTTP client takes to find or open a connection for
/// it. A burst's requests each wait for a new connection while later ones go out at once on a warm
/// one, so at the server a second could hold one more than `rate + burst`. The same bucket kept
/// over the instants the requests are written closes that gap.
public struct WirePace: Sendable, Hashable {
    /// The target, `host:port`, whose bucket the request counts in.
    public var target: String
    /// The time one token takes to come back.
    public var intervalNanos: Int64
    /// How many requests may be written at once after a quiet spell, at least 1.
    public var burst: Int

    public init(target: String, intervalNanos: Int64, burst: Int) {
        self.target = target
        self.intervalNanos = max(1, intervalNanos)
        self.burst = max(1, burst)
    }
}
