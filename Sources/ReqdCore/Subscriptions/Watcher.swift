import ReqdProtocol

/// A subscriber to one job's or one scope's events: a connection and the request that asked.
struct Watcher: Hashable, Sendable {
    var connection: ConnectionID
    var tag: RequestID
}
