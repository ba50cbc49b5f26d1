/// How the daemon's one HTTP client behaves; from the `[http]` table of the configuration.
public struct HTTPSettings: Sendable, Hashable {
    /// How long a connection may take to open.
    public var connectTimeoutNanos: Int64 = 10_000_000_000
    /// How long a connection may sit without reading anything while a request waits on it.
    ///
    /// The whole-request timeout (`http.request_timeout`) is the scheduler's; this is the client's
    /// idle-read guard, set to the same value.
    public var readTimeoutNanos: Int64 = 30_000_000_000
    /// The largest response body accepted; a larger one fails the request.
    public var maxResponseBytes: Int = 1 << 20
    /// Redirects followed per request; 0 follows none (the 3xx is the answer).
    public var maxRedirects: Int = 5
    /// Requests handed to the client per host at once, and so the connections open to one host
    /// at most. A reload may change it (`HTTPExecutor.setMaxConnectionsPerHost(_:)`).
    public var maxConnectionsPerHost: Int = 64
    /// The most `maxConnectionsPerHost` may be.
    public static let maxConnectionsPerHostLimit = 10_000
    /// Event-loop threads of the HTTP client. One measured faster than two on 2 cores
    /// (BENCHMARKS.md): requests and their completions stay on one thread.
    public var threads: Int = 1
    /// The proxies of the daemon's environment (`http_proxy`, `https_proxy`, `no_proxy`).
    public var proxies = ProxySettings()

    /// The defaults.
    public init() {}
}
