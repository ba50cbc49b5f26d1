/// Every job held, oldest first, so `list` walks jobs in order and stops at its limit instead of
/// sorting them all.
///
/// A forgotten job's entry stays until the next compaction, and readers skip ids the table no
/// longer has. A compaction walks the entries in slices (`compact(_:mayMove:keeping:)`), copying
/// the held ones into storage sized for them, and positions only move when it ends, which the
/// scheduler allows only when no query holds a position: a query that walks the order over several
/// turns can resume by position.
struct JobOrder: Sendable {
    /// Job ids in the order the jobs were created; some may have been forgotten.
    private(set) var ids: [JobID] = []
    /// Entries whose jobs have been forgotten.
    private(set) var stale = 0
    /// A compaction in progress: the held ids of `ids[..<cursor]`, in order.
    private var kept: [JobID]?
    private var cursor = 0
    /// Jobs forgotten since the compaction in progress began: some of them may be among `kept`.
    private var staleSinceCompactionBegan = 0

    /// The cost of looking one entry up in the job tables, against a `ShrinkBudget`: 150–450 ns
    /// measured with a million jobs held, most of it cache misses.
    static let visitCost = 3

    /// Adds a new job, the newest.
    mutating func append(_ id: JobID) { ids.append(id) }

    /// Notes that a job was forgotten; its entry is dropped at the next compaction.
    mutating func forgot() {
        stale += 1
        if kept != nil { staleSinceCompactionBegan += 1 }
    }

    /// Makes room for `count` more jobs.
    mutating func reserveCapacity(_ count: Int) { ids.reserveCapacity(ids.count + count) }

    /// True while a compaction is in progress, or when stale entries are at least half of all of
    /// them, and enough to be worth a pass.
    var wantsCompaction: Bool { kept != nil || (stale >= 1024 && stale * 2 >= ids.count) }

    /// Walks the next entries of a compaction, beginning one when none is in progress, as far as
    /// `budget` goes; ends it once every entry has been walked and `mayMove` (positions change).
    ///
    /// - Returns: false while entries are left to walk; true once they are all walked, whether
    ///   the compaction ended or waits, walked, for a moment when positions may move (the next
    ///   pass, since `wantsCompaction` stays true).
    mutating func compact(_ budget: inout ShrinkBudget, mayMove: Bool, keeping isHeld: (JobID) -> Bool) -> Bool {
        if kept == nil {
            kept = []
            // Room for the jobs created while the walk lasts, so the copy rarely grows in a slice.
            let held = ids.count - stale
            kept?.reserveCapacity(held + held / 8 + 1_024)
            cursor = 0
            staleSinceCompactionBegan = 0
        }
        while cursor < ids.count, !budget.isSpent {
            let id = ids[cursor]
            if isHeld(id) { kept?.append(id) }
            cursor += 1
            budget.left -= Self.visitCost
        }
        guard cursor == ids.count else { return false }
        guard mayMove, let kept else { return true }
        budget.freed((ids.capacity - kept.capacity) * MemoryLayout<JobID>.stride)
        budget.disposal.keep(ids)
        ids = kept
        self.kept = nil
        // An overcount at worst (a job forgotten before the walk reached it was not kept), so the
        // next compaction may come a little early, never late.
        stale = staleSinceCompactionBegan
        return true
    }

    /// Drops the entries of forgotten jobs at once, abandoning any compaction in progress;
    /// positions change. For a restore, which is one long operation anyway.
    mutating func compact(keeping isHeld: (JobID) -> Bool) {
        kept = nil
        ids.removeAll { !isHeld($0) }
        stale = 0
    }

    /// Puts the entries in the order `areInIncreasingOrder` gives, for jobs restored beside jobs
    /// already held; positions change.
    mutating func sort(by areInIncreasingOrder: (JobID, JobID) -> Bool) {
        kept = nil
        ids.sort(by: areInIncreasingOrder)
    }
}
