/// How the daemon's one HTTP client behaves; from the `[http]` table of the configuration.
public struct HTTPSettings: Sendable, Hashable {
    /// How long a connection may take to open.
    public var connectTimeoutNanos: Int64 = 10_000_000_000
    /// How long one request may take from start to the end of its answer.
    public var requestTimeoutNanos: Int64 = 30_000_000_000
    /// The largest response body accepted; a larger one fails the request.
    public var maxResponseBytes: Int = 1 << 20
    /// Redirects followed per request; 0 follows none (the 3xx is the answer).
    public var maxRedirects: Int = 5
    /// Connections kept open to one host at most (a soft limit of the pool).
    public var maxConnectionsPerHost: Int = 64

    /// The defaults.
    public init() {}
}
