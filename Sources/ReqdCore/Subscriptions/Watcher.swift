import ReqdProtocol

/// A subscriber to one job's or one scope's events: a connection and the request that asked.
struct Watcher: Hashable, Sendable {
    var connection: ConnectionID
    var tag: RequestID
    /// Only jobs of this owner reach the watcher; nil (root) sees every owner's.
    var ownerFilter: UInt32?

    /// Whether a job of `owner` reaches this watcher.
    func sees(owner: UInt32) -> Bool { ownerFilter.map { $0 == owner } ?? true }
}
