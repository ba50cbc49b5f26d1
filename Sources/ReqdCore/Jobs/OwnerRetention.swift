import ReqdProtocol

/// One owner's ended jobs in the order they ended, for the per-user retention limit.
///
/// Entries are not removed when a job is forgotten another way or put back by `retry`; whoever
/// pops one checks that the job is still there and still ended at the same time, and the shrink
/// pass drops the front entries of forgotten jobs (`dropForgotten`).
struct OwnerRetention: Sendable {
    private var ids: [(id: JobID, endedAt: WallTime?)] = []
    private var head = 0

    /// Whether no entry is left.
    var isEmpty: Bool { head == ids.count }

    /// The oldest entry.
    var first: JobID? { head < ids.count ? ids[head].id : nil }

    /// Adds the job that ended last, with when it ended.
    mutating func append(_ id: JobID, endedAt: WallTime?) { ids.append((id, endedAt)) }

    /// Takes the oldest entry.
    mutating func popFirst() -> (id: JobID, endedAt: WallTime?)? {
        guard head < ids.count else { return nil }
        let id = ids[head]
        head += 1
        if head > 1024, head * 2 > ids.count {
            ids.removeFirst(head)
            head = 0
        }
        return id
    }
}

extension OwnerRetention {
    /// Takes the entries of jobs no longer held from the front, each a `JobOrder.visitCost`
    /// against `budget`; true once the front entry is a held job's, or none is left.
    ///
    /// The array is not compacted meanwhile (`popFirst` would move what is left every time the
    /// taken part passes half); the shrink that follows drops the taken part once.
    mutating func dropForgotten(_ budget: inout ShrinkBudget, isHeld: (JobID) -> Bool) -> Bool {
        while head < ids.count {
            guard !budget.isSpent else { return false }
            budget.left -= JobOrder.visitCost
            guard !isHeld(ids[head].id) else { return true }
            head += 1
        }
        return true
    }
}

extension OwnerRetention: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { ids.shrink(droppingFirst: &head, &budget) }
}
