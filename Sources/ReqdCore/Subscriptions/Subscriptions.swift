import ReqdProtocol

/// Who hears about which job: open connections, their watches of jobs and of scopes, their
/// waits, and the jobs bound to each of them.
///
/// A data machine: it answers "who receives this event" and "whose reply is this", and keeps
/// both directions of every subscription (by job or scope, and by connection) in step, so a
/// closed connection leaves nothing behind.
struct Subscriptions: Sendable {
    private var connections: [ConnectionID: ConnectionState] = [:]
    private var jobWatchers = ShardedDictionary<JobID, [Watcher]>()
    private var scopeWatchers: [ScopeWatch: [Watcher]] = [:]
    private var waiters = ShardedDictionary<JobID, [(connection: ConnectionID, request: RequestID)]>()
    private var connectionsByUID: [UInt32: Int] = [:]

    /// The number of open connections.
    var count: Int { connections.count }

    /// The number of open connections of `uid`.
    func count(of uid: UInt32) -> Int { connectionsByUID[uid] ?? 0 }

    /// Registers a connection.
    mutating func open(_ connection: ConnectionID, peer: Peer) {
        if connections.updateValue(ConnectionState(peer: peer), forKey: connection) == nil {
            connectionsByUID[peer.uid, default: 0] += 1
        }
    }

    /// Who is on the other end of an open connection.
    func peer(of connection: ConnectionID) -> Peer? { connections[connection]?.peer }

    /// Whoever should see an event of this job: its watchers and the watchers of its scope.
    func recipients(of job: JobHeader) -> [Recipient] {
        var result: [Recipient] = []
        for watcher in jobWatchers[job.id] ?? [] {
            result.append(Recipient(connection: watcher.connection, watch: watcher.tag))
        }
        if let scope = job.scope {
            for key in [ScopeWatch(scope: scope, owner: job.owner), ScopeWatch(scope: scope, owner: nil)] {
                for watcher in scopeWatchers[key] ?? [] {
                    result.append(Recipient(connection: watcher.connection, watch: watcher.tag))
                }
            }
        }
        return result
    }

    /// Whether anyone watches this job; unwatched countdowns need no ticks, only their expiry.
    func isWatched(_ job: JobHeader) -> Bool {
        if jobWatchers[job.id]?.isEmpty == false { return true }
        guard let scope = job.scope, !scopeWatchers.isEmpty else { return false }
        return isWatched(ScopeWatch(scope: scope, owner: job.owner)) || isWatched(ScopeWatch(scope: scope, owner: nil))
    }

    /// Whether a scope has watchers under this key.
    func isWatched(_ key: ScopeWatch) -> Bool { scopeWatchers[key]?.isEmpty == false }

    /// Streams a job's events to a connection, tagged with the request that asked.
    mutating func watch(job id: JobID, connection: ConnectionID, tag: RequestID) {
        guard connections[connection] != nil else { return }
        jobWatchers[id, default: []].append(Watcher(connection: connection, tag: tag))
        connections[connection]?.watchedJobs[id, default: []].append(tag)
    }

    /// Streams a scope's events to a connection: every owner's for root, else only the caller's.
    mutating func watch(scope: String, connection: ConnectionID, tag: RequestID, peer: Peer) {
        guard connections[connection] != nil else { return }
        let key = ScopeWatch(scope: scope, owner: peer.uid == 0 ? nil : peer.uid)
        scopeWatchers[key, default: []].append(Watcher(connection: connection, tag: tag))
        connections[connection]?.watchedScopes[key, default: []].append(tag)
    }

    /// The most watches one connection holds of one job or one scope; of jobs, and of scopes.
    /// Watches cost the daemon memory and `unwatch` time but no socket bytes, so a client could
    /// otherwise pile them up without bound.
    static let maxWatchesOfOne = 16
    static let maxWatchedJobs = 16_384
    static let maxWatchedScopes = 1_024

    /// Whether `connection` may watch job `id` once more.
    func mayWatch(job id: JobID, connection: ConnectionID) -> Bool {
        guard let state = connections[connection] else { return true }
        if let tags = state.watchedJobs[id] { return tags.count < Self.maxWatchesOfOne }
        return state.watchedJobs.count < Self.maxWatchedJobs
    }

    /// Whether `connection` may watch the scope `key` names once more.
    func mayWatch(scope key: ScopeWatch, connection: ConnectionID) -> Bool {
        guard let state = connections[connection] else { return true }
        if let tags = state.watchedScopes[key] { return tags.count < Self.maxWatchesOfOne }
        return state.watchedScopes.count < Self.maxWatchedScopes
    }

    /// Ends a connection's subscriptions started by the request `tag`; returns how many.
    mutating func unwatch(connection: ConnectionID, tag: RequestID) -> Int {
        guard var state = connections[connection] else { return 0 }
        let removed =
            Self.detach(connection, tag: tag, from: &jobWatchers, subscriptions: &state.watchedJobs)
            + Self.detach(connection, tag: tag, from: &scopeWatchers, subscriptions: &state.watchedScopes)
        connections[connection] = state
        return removed
    }

    /// Streams a job's events to another daemon (`ConnectionID.cluster`, tagged with the
    /// daemon's name), once however often it asks.
    mutating func watch(job id: JobID, fromDaemon daemon: String) {
        let watcher = Watcher(connection: .cluster, tag: .string(daemon))
        if jobWatchers[id]?.contains(watcher) != true { jobWatchers[id, default: []].append(watcher) }
    }

    /// Stops streaming a job's events to another daemon.
    mutating func unwatch(job id: JobID, fromDaemon daemon: String) {
        jobWatchers[id]?.removeAll { $0.connection == .cluster && $0.tag == .string(daemon) }
        if jobWatchers[id]?.isEmpty == true { jobWatchers[id] = nil }
    }

    /// The watchers here of a job another daemon holds, for an event it sent.
    func recipients(ofJobElsewhere id: JobID) -> [Recipient] {
        (jobWatchers[id] ?? []).map { Recipient(connection: $0.connection, watch: $0.tag) }
    }

    /// Holds a reply until the job ends.
    mutating func wait(for id: JobID, connection: ConnectionID, request: RequestID) {
        guard connections[connection] != nil else { return }
        waiters[id, default: []].append((connection, request))
        connections[connection]?.waits[id, default: 0] += 1
    }

    /// Ties a job to its connection, so that closing the connection cancels it.
    mutating func bind(_ id: JobID, to connection: ConnectionID) {
        connections[connection]?.boundJobs.insert(id)
    }

    /// A job ended: its stream is over and its waiters get their replies. Returns the waiters.
    mutating func jobEnded(_ job: JobHeader) -> [(connection: ConnectionID, request: RequestID)] {
        if let connection = job.boundTo { connections[connection]?.boundJobs.remove(job.id) }
        return jobEnded(elsewhere: job.id)
    }

    /// A job this daemon does not hold ended on another: its stream here is over, and its waiters
    /// get their replies. Returns them.
    mutating func jobEnded(elsewhere id: JobID) -> [(connection: ConnectionID, request: RequestID)] {
        streamEnded(id)
        guard let waiting = waiters.removeValue(forKey: id) else { return [] }
        for (connection, _) in waiting {
            connections[connection]?.waits[id] = nil
        }
        return waiting
    }

    /// A job's stream is over: its watchers here are forgotten.
    mutating func streamEnded(_ id: JobID) {
        guard let watchers = jobWatchers.removeValue(forKey: id) else { return }
        for watcher in watchers {
            connections[watcher.connection]?.watchedJobs[id] = nil
        }
    }

    /// Forgets a closed connection: its watches and its waits. Returns the jobs bound to it, in
    /// id order, for the caller to cancel.
    mutating func close(_ connection: ConnectionID) -> [JobID] {
        guard var state = connections.removeValue(forKey: connection) else { return [] }
        connectionsByUID.countDown(state.peer.uid)
        _ = Self.detach(connection, tag: nil, from: &jobWatchers, subscriptions: &state.watchedJobs)
        _ = Self.detach(connection, tag: nil, from: &scopeWatchers, subscriptions: &state.watchedScopes)
        for id in state.waits.keys {
            waiters[id]?.removeAll { $0.connection == connection }
            if waiters[id]?.isEmpty == true { waiters[id] = nil }
        }
        return state.boundJobs.sorted()
    }

    /// Removes a connection's watchers from one index (a job's or a scope's): those started by
    /// `tag`, or all of them when `tag` is nil. Returns how many subscriptions ended.
    private static func detach<Watchers: KeyedTable<Watchers.Key, [Watcher]>, Tags: KeyedTable<Watchers.Key, [RequestID]>>(
        _ connection: ConnectionID, tag: RequestID?, from watchers: inout Watchers, subscriptions: inout Tags
    ) -> Int {
        var removed = 0
        for (key, tags) in subscriptions where tag.map(tags.contains) ?? true {
            watchers[key]?.removeAll { $0.connection == connection && (tag == nil || $0.tag == tag) }
            if watchers[key]?.isEmpty == true { watchers[key] = nil }
            if let tag {
                subscriptions[key]?.removeAll { $0 == tag }
                if subscriptions[key]?.isEmpty == true { subscriptions[key] = nil }
            } else {
                subscriptions[key] = nil
            }
            removed += 1
        }
        return removed
    }
}

extension Subscriptions: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        connections.shrinkWithValues(&budget) && jobWatchers.shrink(&budget)
            && scopeWatchers.shrinkWithValues(&budget) && waiters.shrink(&budget)
            && connectionsByUID.shrink(&budget)
    }
}
