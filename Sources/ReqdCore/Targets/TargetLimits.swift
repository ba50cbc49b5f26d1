/// What one `[targets."HOST"]` table (or `[targets.default]`) asks for; every key optional.
///
/// A table that leaves a key out takes it from `[targets.default]`, and past that from the
/// built-in default: no rate limit, `burst` 1, `concurrency` equal to
/// `http.max_connections_per_host`, and `decompress` on.
public struct TargetLimits: Sendable, Hashable {
    /// Requests a period at most, as a token bucket refilled evenly; nil for no limit.
    public var rate: TargetRate?
    /// The bucket's size: how many requests may go at once after a quiet spell.
    public var burst: Int?
    /// Requests in flight at most.
    public var concurrency: Int?
    /// Whether requests ask for a compressed answer (`Accept-Encoding: gzip, deflate`); on unless set off.
    public var decompress: Bool?

    public init(rate: TargetRate? = nil, burst: Int? = nil, concurrency: Int? = nil, decompress: Bool? = nil) {
        self.rate = rate
        self.burst = burst
        self.concurrency = concurrency
        self.decompress = decompress
    }

    /// These limits, with the keys they leave out taken from `fallback`.
    func over(_ fallback: TargetLimits) -> TargetLimits {
        TargetLimits(
            rate: rate ?? fallback.rate, burst: burst ?? fallback.burst, concurrency: concurrency ?? fallback.concurrency,
            decompress: decompress ?? fallback.decompress)
    }
}
