import ReqdProtocol

/// How long ended jobs stay visible: for the retention period, and at most so many of them.
extension JobTable {
    /// Starts an ended job's retention.
    mutating func retain(_ id: JobID, endedAt: Instant) {
        retained.append((id, endedAt))
        if let header = self[id] {
            let owner = header.owner
            retainedByOwner[owner, default: OwnerRetention()].append(id, endedAt: header.endedAt)
            retentionGrew.insert(owner)
            // Entries of jobs already forgotten (by age, or the daemon-wide limit) leave from the
            // front, a few per end, so the list stays about as long as what the owner keeps. After
            // a mass forget the shrink pass drops the rest in slices (`dropForgottenRetained`).
            var dropped = 0
            while dropped < 8, let first = retainedByOwner[owner]?.first, self[first] == nil {
                _ = retainedByOwner[owner]?.popFirst()
                dropped += 1
            }
        }
    }

    /// Marks stale the entry that a job's end left in `retained`, as the job leaves retention
    /// another way (`retry`, `delete`); a dead letter's retention runs on the timer and left none.
    mutating func leaveRetention(_ id: JobID, endedIn state: JobState) {
        guard state != .active, state != .dead else { return }
        staleRetained[id, default: 0] += 1
        staleRetainedCount += 1
    }

    /// Takes the ended jobs to forget because their owners keep more than `limit(owner)` (nil: no
    /// limit for that owner), each owner's oldest first, looking at `share` entries at most; an
    /// owner still over its limit then is looked at again next time.
    mutating func overOwnerLimits(share: Int, _ limit: (UInt32) -> Int?) -> [JobID] {
        guard !retentionGrew.isEmpty else { return [] }
        var due: [JobID] = []
        var looked = 0
        var stillOver: Set<UInt32> = []
        for owner in retentionGrew {
            guard let max = limit(owner), retainedJobs(ownedBy: owner) > max else { continue }
            guard looked < share else {
                stillOver.insert(owner)
                continue
            }
            var kept = retainedJobs(ownedBy: owner)
            while kept > max, looked < share, let (id, endedAt) = retainedByOwner[owner]?.popFirst() {
                looked += 1
                // An entry left by an end that `retry` undid since does not count.
                guard let header = self[id], header.state != .active, header.state != .dead, header.endedAt == endedAt
                else { continue }
                due.append(id)
                kept -= 1
                // Its entry in the daemon-wide list stays behind: mark it stale, so it counts
                // against no one's `maxRetained`.
                staleRetained[id, default: 0] += 1
                staleRetainedCount += 1
            }
            if kept > max { stillOver.insert(owner) }
            if retainedByOwner[owner]?.isEmpty == true { retainedByOwner[owner] = nil }
        }
        retentionGrew = stillOver
        return due
    }

    /// Takes the ended jobs to forget now, oldest first, looking at `limit` entries at most (stale
    /// ones count too, and go whenever they are first): those whose retention has passed at
    /// `now`, and the oldest beyond `maxRetained`. An end that `retry` undid does not count: a job
    /// put back since is not among them (nor a dead letter: those leave through the timer), and
    /// one that ended again goes by its last end. Returns them and the entries looked at.
    mutating func expired(at now: Instant, retention: Int64, maxRetained: Int, limit: Int) -> (due: [JobID], looked: Int) {
        var due: [JobID] = []
        var looked = 0
        // A stale entry at the front goes at once: left by a job forgotten over its owner's limit
        // (or put back by `retry`), it would otherwise stay, with its mark, until `jobs.retention`
        // passed; a user at its limit would pile up an hour of them.
        while looked < limit, let first = retained.first,
            retained.count - staleRetainedCount > maxRetained || first.endedAt.advanced(by: retention) <= now
                || (staleRetainedCount > 0 && staleRetained[first.id] != nil)
        {
            let id = first.id
            _ = retained.popFirst()
            looked += 1
            if let stale = staleRetained[id] {
                staleRetained[id] = stale > 1 ? stale - 1 : nil
                staleRetainedCount -= 1
            } else if let header = self[id], header.state != .active, header.state != .dead {
                due.append(id)
            }
        }
        return (due, looked)
    }

    /// `owner`'s dead letters held now, and the first created of them but `sparing`.
    func deadLetters(ownedBy owner: UInt32, sparing: JobID) -> (count: Int, first: JobID?) {
        guard let leaf = deadLeaf(ownedBy: owner) else { return (0, nil) }
        return (leaf.count, Self.first(of: leaf, sparing: sparing)?.id)
    }

    /// The first created of every owner's dead letters but `sparing`; nil when none is held. It
    /// looks at each owner that has one.
    func firstDeadLetter(sparing: JobID) -> JobID? {
        var first: ListIndex.Entry?
        for (owner, kinds) in counts where (kinds[.request]?[.dead] ?? 0) > 0 {
            guard let leaf = deadLeaf(ownedBy: owner), let entry = Self.first(of: leaf, sparing: sparing) else { continue }
            if first.map({ entry < $0 }) ?? true { first = entry }
        }
        return first?.id
    }

    /// `owner`'s dead letters in creation order, from the list index.
    private func deadLeaf(ownedBy owner: UInt32) -> SortedChunks<ListIndex.Entry>? {
        listIndex.leaves[ListIndex.LeafKey(owner: owner, group: .all, state: .dead, kind: .request)]
    }

    /// A leaf's first entry, or its second when the first is `sparing`'s.
    private static func first(of leaf: SortedChunks<ListIndex.Entry>, sparing: JobID) -> ListIndex.Entry? {
        guard let first = leaf.first else { return nil }
        guard first.id == sparing else { return first }
        return leaf.count > 1 ? leaf.element(at: leaf.position(after: .init(chunk: 0, index: 0))) : nil
    }
}
