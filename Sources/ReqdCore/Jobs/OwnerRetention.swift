import ReqdProtocol

/// One owner's ended jobs in the order they ended, for the per-user retention limit.
///
/// Entries are not removed when a job is forgotten another way or put back by `retry`; whoever
/// pops one checks that the job is still there and still ended at the same time, and the shrink
/// pass drops the front entries of forgotten jobs (`dropForgotten`).
struct OwnerRetention: Sendable {
    private var ids = ChunkedArray<(id: JobID, endedAt: WallTime?)>()

    /// Whether no entry is left.
    var isEmpty: Bool { ids.isEmpty }

    /// The oldest entry.
    var first: JobID? { ids.first?.id }

    /// Adds the job that ended last, with when it ended.
    mutating func append(_ id: JobID, endedAt: WallTime?) { ids.append((id, endedAt)) }

    /// Takes the oldest entry.
    mutating func popFirst() -> (id: JobID, endedAt: WallTime?)? { ids.popFirst() }
}

extension OwnerRetention {
    /// The cost of looking one entry up in the job tables, against a `ShrinkBudget`: 150–450 ns
    /// measured with a million jobs held, most of it cache misses.
    static let visitCost = 3

    /// Takes the entries of jobs no longer held from the front, each a `visitCost` against
    /// `budget`; true once the front entry is a held job's, or none is left.
    mutating func dropForgotten(_ budget: inout ShrinkBudget, isHeld: (JobID) -> Bool) -> Bool {
        while let first = ids.first {
            guard !budget.isSpent else { return false }
            budget.left -= Self.visitCost
            guard !isHeld(first.id) else { return true }
            _ = ids.popFirst()
        }
        return true
    }
}

extension OwnerRetention: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { ids.shrink(&budget) }
}
