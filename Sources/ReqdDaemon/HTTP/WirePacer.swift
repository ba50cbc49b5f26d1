import ReqdCore

/// Each rate-limited target's bucket over the instants its requests are written.
///
/// The same GCRA as the scheduler's `TargetLimiter` (one instant per target: when the bucket is
/// empty again at the steady rate), but charged when a request's head is written. A write that
/// would overfill the bucket is given the instant it may go instead, and the bucket counts it
/// there, so the writes of each target hold every window of a second to `rate + burst` whatever
/// the connections did to the requests between the token and the wire. While the writes keep to
/// the scheduler's tokens, which is nearly always, no write waits.
struct WirePacer: Sendable {
    /// When each target's bucket is empty again, on the clock the writes are read from.
    private var theoretical: [String: Int64] = [:]
    /// Past this many targets, a reservation forgets those whose bucket is full again.
    private var sweepAbove = 1_024

    /// The instant a write of `pace`'s target at `now` may go (`now` itself unless the bucket is
    /// full), counted in the bucket.
    mutating func reserve(_ pace: WirePace, at now: Int64) -> Int64 {
        let tolerance = pace.intervalNanos * Int64(pace.burst - 1)
        let empty = theoretical[pace.target] ?? now
        let at = max(now, empty - tolerance)
        theoretical[pace.target] = max(empty, at) + pace.intervalNanos
        if theoretical.count > sweepAbove {
            theoretical = theoretical.filter { $0.value > now }
            sweepAbove = max(1_024, theoretical.count * 2)
        }
        return at
    }

    /// How many targets the pacer remembers.
    var targets: Int { theoretical.count }
}
