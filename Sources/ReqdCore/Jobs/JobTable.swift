import ReqdProtocol

/// Every job's header, the indexes over them, the counts the summary shows, and how long ended
/// jobs stay.
///
/// A data machine in the sense of STYLE.md: it keeps its indexes true and reports facts; the
/// scheduler decides. It knows no kind's state: each kind's machines live in a table of their
/// own, keyed by the same ids.
struct JobTable: Sendable {
    /// A key in one owner's namespace.
    struct OwnedKey: Hashable, Sendable {
        var owner: UInt32
        var key: String
    }

    var headers: [JobID: JobHeader] = [:]
    var activeByKey: [OwnedKey: JobID] = [:]
    var activeByScope: [String: Set<JobID>] = [:]
    /// Jobs by owner, kind and state, for the summary.
    private(set) var counts: [UInt32: [JobKind: [JobState: Int]]] = [:]
    /// Jobs that have not ended.
    private(set) var liveJobs = 0
    /// Ended jobs in the order they ended, for retention. They are forgotten as events arrive,
    /// not by the timer, so an idle daemon never wakes up just to forget old jobs.
    var retained: [(id: JobID, endedAt: Instant)] = []
    var retainedHead = 0
    /// Entries of `retained` left by jobs that `retry` put back since, by job: each is skipped,
    /// so a job that ends again stays for its whole retention from its last end.
    var staleRetained: [JobID: Int] = [:]
    /// How many stale entries `retained` holds in all: they do not count against `maxRetained`.
    var staleRetainedCount = 0

    /// The header of a job.
    subscript(id: JobID) -> JobHeader? { headers[id] }

    /// The number of jobs held, active and ended.
    var count: Int { headers.count }

    /// The active job that holds `key` in `owner`'s namespace.
    func holder(ofKey key: String, owner: UInt32) -> JobID? { activeByKey[OwnedKey(owner: owner, key: key)] }

    /// The active jobs in `scope`.
    func activeJobs(inScope scope: String) -> Set<JobID> { activeByScope[scope] ?? [] }

    /// Adds a new active job: it takes its key (the caller has ended the job that held it) and
    /// joins its scope and the counts.
    mutating func insert(_ header: JobHeader) {
        headers[header.id] = header
        if let key = header.key { activeByKey[OwnedKey(owner: header.owner, key: key)] = header.id }
        if let scope = header.scope { activeByScope[scope, default: []].insert(header.id) }
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: 1)
    }

    /// Records that an active job ended: it leaves its key and scope, and the counts move.
    mutating func end(_ id: JobID, as state: JobState, reason: CancelReason?, replacedBy: JobID?, at now: WallTime) {
        guard var header = headers[id], header.state == .active else { return }
        header.state = state
        header.reason = reason
        header.replacedBy = replacedBy
        header.endedAt = now
        headers[id] = header
        if let key = header.key, activeByKey[OwnedKey(owner: header.owner, key: key)] == id {
            activeByKey[OwnedKey(owner: header.owner, key: key)] = nil
        }
        if let scope = header.scope {
            activeByScope[scope]?.remove(id)
            if activeByScope[scope]?.isEmpty == true { activeByScope[scope] = nil }
        }
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: -1)
        adjustCount(owner: header.owner, kind: header.kind, state: state, by: 1)
    }

    /// Makes an ended job active again (`retry`): it rejoins its scope, and its key when that is free.
    mutating func reactivate(_ id: JobID) {
        guard var header = headers[id], header.state != .active else { return }
        if header.state != .dead {
            // Its end started a retention (a dead letter's runs on the timer): that entry is stale now.
            staleRetained[id, default: 0] += 1
            staleRetainedCount += 1
        }
        adjustCount(owner: header.owner, kind: header.kind, state: header.state, by: -1)
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: 1)
        header.state = .active
        header.endedAt = nil
        header.error = nil
        headers[id] = header
        if let scope = header.scope { activeByScope[scope, default: []].insert(id) }
        if let key = header.key, activeByKey[OwnedKey(owner: header.owner, key: key)] == nil {
            activeByKey[OwnedKey(owner: header.owner, key: key)] = id
        }
    }

    /// Changes what a job's header says of its latest answer and of why it failed.
    mutating func update(_ id: JobID, result: HTTPResult?, error: String?) {
        if let result { headers[id]?.result = result }
        if let error { headers[id]?.error = error }
    }

    /// Forgets a job; returns its header.
    @discardableResult
    mutating func remove(_ id: JobID) -> JobHeader? {
        guard let header = headers.removeValue(forKey: id) else { return nil }
        adjustCount(owner: header.owner, kind: header.kind, state: header.state, by: -1)
        return header
    }

    /// Job counts by kind and state over the owners `peer` may see, every kind and state listed.
    func counts(visibleTo peer: Peer) -> [String: [String: Int]] {
        var byKind: [String: [String: Int]] = [:]
        for kind in JobKind.allCases {
            byKind[kind.rawValue] = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, 0) })
        }
        for (owner, kinds) in counts where peer.mayAccess(ownerUID: owner) {
            for (kind, states) in kinds {
                for (state, count) in states {
                    byKind[kind.rawValue, default: [:]][state.rawValue, default: 0] += count
                }
            }
        }
        return byKind
    }

    mutating func adjustCount(owner: UInt32, kind: JobKind, state: JobState, by delta: Int) {
        counts[owner, default: [:]][kind, default: [:]][state, default: 0] += delta
        if state == .active { liveJobs += delta }
    }
}
