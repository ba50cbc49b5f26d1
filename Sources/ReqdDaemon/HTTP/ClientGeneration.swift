import AsyncHTTPClient

/// The clients an `HTTPExecutor` sends through, made together with one pool size: one direct
/// (through the target gate when there is one) and one per proxy.
///
/// AsyncHTTPClient reserves room for up to 1,024 connections in each host's pool, so the pool is
/// made as large as `http.max_connections_per_host` is, not as large as it may become. A reload
/// that raises the setting past `poolLimit` makes a new generation: the old one takes no new
/// request, and is shut down once its last request has ended.
struct ClientGeneration: Sendable {
    /// Counts the generations of one executor, from 0.
    let number: Int
    /// Connections per host each of its clients' pools may open.
    let poolLimit: Int
    let direct: HTTPClient
    /// A client per proxy, for the requests that go through it.
    let proxied: [ProxySettings.Proxy: HTTPClient]

    /// Every client of the generation.
    var all: [HTTPClient] { [direct] + Array(proxied.values) }

    /// The client a request to `url` goes through: its scheme's proxy unless `no_proxy` covers it.
    func client(for url: String, proxies: ProxySettings) -> HTTPClient {
        proxies.proxy(for: url).flatMap { proxied[$0] } ?? direct
    }
}
