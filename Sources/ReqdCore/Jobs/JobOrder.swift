/// Every job held, oldest first, so `list` walks jobs in order and stops at its limit instead of
/// sorting them all.
///
/// A forgotten job's entry stays until the next compaction, and readers skip ids the table no
/// longer has. Positions only move in `compact(keeping:)`, which the scheduler runs when no query
/// holds a position, so a query that walks the order over several turns can resume by position.
struct JobOrder: Sendable {
    /// Job ids in the order the jobs were created; some may have been forgotten.
    private(set) var ids: [JobID] = []
    /// Entries whose jobs have been forgotten.
    private(set) var stale = 0

    /// Adds a new job, the newest.
    mutating func append(_ id: JobID) { ids.append(id) }

    /// Notes that a job was forgotten; its entry is dropped at the next compaction.
    mutating func forgot() { stale += 1 }

    /// Makes room for `count` more jobs.
    mutating func reserveCapacity(_ count: Int) { ids.reserveCapacity(ids.count + count) }

    /// True when stale entries are at least half of all of them, and enough to be worth a pass.
    var wantsCompaction: Bool { stale >= 1024 && stale * 2 >= ids.count }

    /// Drops the entries of forgotten jobs; positions change.
    mutating func compact(keeping isHeld: (JobID) -> Bool) {
        ids.removeAll { !isHeld($0) }
        stale = 0
    }

    /// Puts the entries in the order `areInIncreasingOrder` gives, for jobs restored beside jobs
    /// already held; positions change.
    mutating func sort(by areInIncreasingOrder: (JobID, JobID) -> Bool) {
        ids.sort(by: areInIncreasingOrder)
    }
}
