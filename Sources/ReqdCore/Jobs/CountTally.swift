import ReqdProtocol

/// Counts restored jobs in runs of one owner, kind and state: a million restored jobs then cost a
/// handful of updates of the nested counts instead of three lookups each.
struct CountTally {
    private var run: (owner: UInt32, kind: JobKind, state: JobState, count: Int)?

    /// Counts one more job, flushing the run when the job starts another.
    mutating func add(_ header: JobHeader, to table: inout JobTable) {
        if let current = run, current.owner == header.owner, current.kind == header.kind, current.state == header.state {
            run?.count += 1
            return
        }
        flush(to: &table)
        run = (header.owner, header.kind, header.state, 1)
    }

    /// Adds the run so far to the table's counts.
    mutating func flush(to table: inout JobTable) {
        guard let current = run else { return }
        table.adjustCount(owner: current.owner, kind: current.kind, state: current.state, by: current.count)
        run = nil
    }
}
