import ReqdCore

/// Each rate-limited target's bucket over the instants its requests are written.
///
/// The same GCRA as the scheduler's `TargetLimiter` (one instant per target: when the bucket is
/// empty again at the steady rate), but charged when a request's head is written. A write that
/// would overfill the bucket is given the instant it may go instead, and the bucket counts it
/// there, so the writes of each target hold every window of a second to `rate + burst` whatever
/// the connections did to the requests between the token and the wire. While the writes keep to
/// the scheduler's tokens, no write waits, except that a token the scheduler handed out late
/// (up to one interval, which its bucket forgives) can make the next write wait that long: the
/// rate is kept, not the bucket's slack.
struct WirePacer: Sendable {
    /// A target's bucket: when it is empty again, on the clock the writes are read from, and the
    /// rate it was filled at.
    private struct Bucket: Sendable {
        var empty: Int64
        var intervalNanos: Int64
        var burst: Int
    }

    private var buckets: [String: Bucket] = [:]
    /// Past this many targets, a reservation forgets those whose bucket is full again.
    private var sweepAbove = 1_024

    /// The instant a write of `pace`'s target at `now` may go (`now` itself unless the bucket is
    /// full), counted in the bucket. A rate changed by a reload starts a full bucket, as the
    /// scheduler's does: what the old rate owed is not carried over.
    mutating func reserve(_ pace: WirePace, at now: Int64) -> Int64 {
        let tolerance = pace.intervalNanos * Int64(pace.burst - 1)
        var empty = now
        if let bucket = buckets[pace.target], bucket.intervalNanos == pace.intervalNanos, bucket.burst == pace.burst {
            empty = bucket.empty
        }
        let at = max(now, empty - tolerance)
        buckets[pace.target] = Bucket(empty: max(empty, at) + pace.intervalNanos, intervalNanos: pace.intervalNanos, burst: pace.burst)
        if buckets.count > sweepAbove {
            buckets = buckets.filter { $0.value.empty > now }
            sweepAbove = max(1_024, buckets.count * 2)
        }
        return at
    }

    /// How many targets the pacer remembers.
    var targets: Int { buckets.count }
}
