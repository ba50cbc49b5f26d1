/// What waits for the store: durable jobs written but not yet committed, and the work each
/// commit releases.
///
/// A durable job is never acknowledged before it is on disk. The scheduler stages it here with a
/// barrier token; when the store reports that token committed, the gate hands back what to do.
/// Staged jobs are not live yet, but their ids are taken and `status` can already see them.
struct CommitGate: Sendable {
    private var pending: [CommitToken: PendingCommit] = [:]
    private var nextToken: UInt64 = 1
    private var staged = ShardedDictionary<JobID, Job>()
    private var stagedByOwner: [UInt32: Int] = [:]
    /// Request jobs that another job's end started although their insert failed: each of their
    /// writes is a whole row again, until one commits, since an update would find no row.
    private var unstored: Set<JobID> = []
    /// The staged jobs that hold a key, by owner and key, in the order they were registered.
    private var stagedWithKey: [JobTable.OwnedKey: [JobID]] = [:]
    /// Staged jobs that ended before their commit completed, and how: a `cancel` named them, a
    /// later registration with their key started at once (ephemeral or connection-bound), or a
    /// schedule's newer run replaced them. Each ends as soon as it starts; the first ending stands.
    private var endedWhileStaged: [JobID: StagedEnding] = [:]

    /// Whether `id`'s row may be missing from the store.
    func isUnstored(_ id: JobID) -> Bool { !unstored.isEmpty && unstored.contains(id) }

    /// Notes that `id` runs without a row, or (false) that its row is on disk or no longer needed.
    mutating func setUnstored(_ id: JobID, _ missing: Bool) {
        if missing { unstored.insert(id) } else if !unstored.isEmpty { unstored.remove(id) }
    }

    /// Durable jobs written and not yet committed.
    var stagedCount: Int { staged.count }

    /// `owner`'s durable jobs written and not yet committed.
    func stagedCount(ownedBy owner: UInt32) -> Int { stagedByOwner[owner] ?? 0 }

    /// A staged job by id.
    func staged(_ id: JobID) -> Job? { staged[id] }

    /// Whether an id is taken by a staged job.
    func isStaged(_ id: JobID) -> Bool { staged[id] != nil }

    /// The staged jobs a `cancel` by key or by scope names: those of `owner` with `key`, in the
    /// order they were staged, or those in `scope` that `mayCancel` allows, by id.
    func staged(key: String?, owner: UInt32, scope: String?, mayCancel: (UInt32) -> Bool) -> [JobID] {
        guard !staged.isEmpty else { return [] }
        if let key { return stagedWithKey[JobTable.OwnedKey(owner: owner, key: key)] ?? [] }
        guard let scope else { return [] }
        return staged.values.filter { $0.scope == scope && mayCancel($0.owner) }.map(\.id).sorted()
    }

    /// Notes that the staged job `id` is to end as soon as its commit completes, unless something
    /// ended it already.
    mutating func endWhenCommitted(_ id: JobID, _ ending: StagedEnding) {
        if endedWhileStaged[id] == nil { endedWhileStaged[id] = ending }
    }

    /// How the job whose commit just completed ended while staged, if it did; forgets it.
    mutating func takeEnding(_ id: JobID) -> StagedEnding? {
        endedWhileStaged.isEmpty ? nil : endedWhileStaged.removeValue(forKey: id)
    }

    /// Holds `job` until the store has it; returns the token of the barrier that closes its batch.
    mutating func stage(_ job: Job, _ then: PendingCommit) -> CommitToken {
        if staged.updateValue(job, forKey: job.id) == nil {
            stagedByOwner[job.owner, default: 0] += 1
            if let key = job.key { stagedWithKey[JobTable.OwnedKey(owner: job.owner, key: key), default: []].append(job.id) }
        }
        return barrier(then)
    }

    /// Notes that `newer`, registered now and started at once, supersedes every staged job of
    /// `owner` with `key`: registered before it, each ends superseded by it once committed,
    /// rather than replacing it, so that the latest registration wins whatever the commit order.
    mutating func supersedeStaged(key: String, owner: UInt32, by newer: JobID) {
        guard !stagedWithKey.isEmpty, let ids = stagedWithKey[JobTable.OwnedKey(owner: owner, key: key)] else { return }
        for id in ids { endWhenCommitted(id, .superseded(newer)) }
    }

    /// Returns the token of a barrier whose commit releases `then`.
    mutating func barrier(_ then: PendingCommit) -> CommitToken {
        let token = CommitToken(nextToken)
        nextToken += 1
        pending[token] = then
        return token
    }

    /// The store committed (or failed) the batch `token` closed: what it releases, its staged job
    /// no longer staged. Nil for a token already completed.
    mutating func complete(_ token: CommitToken) -> PendingCommit? {
        guard let then = pending.removeValue(forKey: token) else { return nil }
        switch then {
        case .registration(let job, _, _, _), .spawn(let job):
            if staged.removeValue(forKey: job.id) != nil {
                stagedByOwner.countDown(job.owner)
                if let key = job.key { unstage(job.id, key: JobTable.OwnedKey(owner: job.owner, key: key)) }
            }
        case .reply, .duplicate, .stored: break
        }
        return then
    }

    private mutating func unstage(_ id: JobID, key: JobTable.OwnedKey) {
        guard var ids = stagedWithKey[key] else { return }
        ids.removeAll { $0 == id }
        stagedWithKey[key] = ids.isEmpty ? nil : ids
    }
}

extension CommitGate: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        pending.shrink(&budget) && staged.shrink(&budget) && stagedByOwner.shrink(&budget) && unstored.shrink(&budget)
    }
}
