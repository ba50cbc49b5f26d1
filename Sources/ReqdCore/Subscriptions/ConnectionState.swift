import ReqdProtocol

/// What the scheduler knows about one open connection.
struct ConnectionState: Sendable {
    var peer: Peer
    /// The request tags of its watches, by job and by scope.
    var watchedJobs = ShardedDictionary<JobID, [RequestID]>(shrinksOnRemoval: true)
    var watchedScopes: [ScopeWatch: [RequestID]] = [:]
    /// Its `wait`s, by job: how many.
    var waits = ShardedDictionary<JobID, Int>(shrinksOnRemoval: true)
    /// Jobs bound to this connection: cancelled when it closes.
    var boundJobs = ShardedSet<JobID>()
}

extension ConnectionState: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        watchedJobs.shrink(&budget) && watchedScopes.shrink(&budget) && waits.shrink(&budget)
            && boundJobs.shrink(&budget)
    }
}
