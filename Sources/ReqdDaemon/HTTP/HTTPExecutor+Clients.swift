import AsyncHTTPClient
import NIOPosix

/// The generations of clients: made with a pool size, replaced when a reload raises it past
/// their pools, shut down once retired and idle.
extension HTTPExecutor {
    /// A generation of clients whose pools open `poolLimit` connections per host at most.
    static func makeClients(
        _ number: Int, poolLimit: Int, _ configuration: HTTPClient.Configuration, _ settings: HTTPSettings, _ gate: TargetGate?,
        _ group: MultiThreadedEventLoopGroup
    ) -> ClientGeneration {
        var configuration = configuration
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = poolLimit
        var proxied: [ProxySettings.Proxy: HTTPClient] = [:]
        for proxy in Set([settings.proxies.http, settings.proxies.https].compactMap { $0 }) {
            var through = configuration
            through.proxy = .server(
                host: proxy.host, port: proxy.port,
                authorization: proxy.username.map { .basic(username: $0, password: proxy.password ?? "") })
            proxied[proxy] = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: through)
        }
        if let gate {
            configuration.proxy = .server(
                host: "127.0.0.1", port: gate.port, authorization: .basic(username: "reqd", password: gate.checkpoint.password))
        }
        let direct = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        return ClientGeneration(number: number, poolLimit: poolLimit, direct: direct, proxied: proxied)
    }

    /// Sets the requests per host handed to the client at once: a reload of
    /// `http.max_connections_per_host`. Under a raised limit the requests waiting start at once,
    /// through a new generation of clients when the limit is past their pools; requests out now
    /// finish where they are. A host above a lowered limit starts no waiting request until it is
    /// below it.
    public func setMaxConnectionsPerHost(_ limit: Int) {
        let limit = max(1, limit)
        perHostLimit.store(limit, ordering: .relaxed)
        let idle = state.withLock { state -> ClientGeneration? in
            guard limit > state.clients.poolLimit else { return nil }
            let old = state.clients
            state.clients = Self.makeClients(old.number + 1, poolLimit: limit, baseConfiguration, settings, gate, group)
            guard state.running[old.number, default: 0] == 0 else {
                state.retired[old.number] = old
                return nil
            }
            state.running[old.number] = nil
            return old
        }
        if let idle { Self.shutDown(idle) }
        // Requests waiting for a host may start now, up to the new limit.
        let hosts = state.withLock { Array($0.hosts.keys) }
        for host in hosts { startWaiting(host: host, freed: 0) }
    }

    /// Counts the end of a request handed to generation `number`; returns that generation when
    /// it is retired and this was its last request.
    static func ended(_ number: Int, in state: inout State) -> ClientGeneration? {
        state.running[number, default: 1] -= 1
        guard number != state.clients.number, state.running[number] == 0 else { return nil }
        state.running[number] = nil
        return state.retired.removeValue(forKey: number)
    }

    /// Shuts a generation's clients down, off the event loops (a callback, not a wait).
    static func shutDown(_ clients: ClientGeneration) {
        for client in clients.all { client.shutdown { _ in } }
    }

    /// The generation new requests go through; a test reads it to see an old one shut down.
    var currentClients: ClientGeneration { state.withLock { $0.clients } }

    /// The numbers of the generations not shut down yet, the current one first.
    var liveGenerations: [Int] { state.withLock { [$0.clients.number] + $0.retired.keys.sorted() } }
}
