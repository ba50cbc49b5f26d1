/// What one `[targets."HOST"]` table (or `[targets.default]`) asks for; every key optional.
///
/// A table that leaves a key out takes it from `[targets.default]`, and past that from the
/// built-in default: no rate limit, `burst` 1, `concurrency` equal to
/// `http.max_connections_per_host`, `decompress` on, and no circuit breaker. A breaker is on
/// where `breaker_failure_ratio` applies; its other keys default to `BreakerSettings`'.
public struct TargetLimits: Sendable, Hashable {
    /// Requests a period at most, as a token bucket refilled evenly; nil for no limit.
    public var rate: TargetRate?
    /// The bucket's size: how many requests may go at once after a quiet spell.
    public var burst: Int?
    /// Requests in flight at most.
    public var concurrency: Int?
    /// Whether requests ask for a compressed answer (`Accept-Encoding: gzip, deflate`); on unless set off.
    public var decompress: Bool?
    /// The share of failed requests that opens the circuit breaker; nil or 0 for no breaker.
    public var breakerFailureRatio: Double?
    /// The requests that must end in the window before the breaker may open.
    public var breakerMinRequests: Int?
    /// The window the ratio is taken over.
    public var breakerWindowNanos: Int64?
    /// How long the breaker stays open before its probe.
    public var breakerOpenForNanos: Int64?
    /// `sign_secret_file` as written (empty: unsigned, whatever `[targets.default]` says).
    public var signSecretFile: String?
    /// The secrets read from `signSecretFile` at start or reload.
    public var signing: SigningSecrets?
    /// A private CA and a client certificate (`ca_file`, `ca_only`, `client_cert`, `client_key`).
    public var tls = TargetTLS()

    public init(rate: TargetRate? = nil, burst: Int? = nil, concurrency: Int? = nil, decompress: Bool? = nil) {
        self.rate = rate
        self.burst = burst
        self.concurrency = concurrency
        self.decompress = decompress
    }

    /// The breaker these keys ask for, the left-out ones at their defaults; nil without a ratio
    /// or with 0.
    var breaker: BreakerSettings? {
        breakerFailureRatio.flatMap { $0 > 0 ? $0 : nil }.map { ratio in
            BreakerSettings(
                failureRatio: ratio, minRequests: breakerMinRequests ?? BreakerSettings.defaultMinRequests,
                windowNanos: breakerWindowNanos ?? BreakerSettings.defaultWindowNanos,
                openForNanos: breakerOpenForNanos ?? BreakerSettings.defaultOpenForNanos)
        }
    }

    /// These limits, with the keys they leave out taken from `fallback`.
    func over(_ fallback: TargetLimits) -> TargetLimits {
        var filled = TargetLimits(
            rate: rate ?? fallback.rate, burst: burst ?? fallback.burst, concurrency: concurrency ?? fallback.concurrency,
            decompress: decompress ?? fallback.decompress)
        filled.breakerFailureRatio = breakerFailureRatio ?? fallback.breakerFailureRatio
        filled.breakerMinRequests = breakerMinRequests ?? fallback.breakerMinRequests
        filled.breakerWindowNanos = breakerWindowNanos ?? fallback.breakerWindowNanos
        filled.breakerOpenForNanos = breakerOpenForNanos ?? fallback.breakerOpenForNanos
        filled.tls = tls.over(fallback.tls)
        if signSecretFile == nil {
            filled.signSecretFile = fallback.signSecretFile
            filled.signing = fallback.signing
        } else {
            filled.signSecretFile = signSecretFile
            filled.signing = signing
        }
        return filled
    }
}
