/// Changes to a part that more than one kind of machine has, made in the table of the id's kind
/// and only when the job is there.
///
/// A change through a table that lacks the id (`deliveries[id]?.machine.log.append(…)` for a
/// poll's id) finds nothing, but makes room for the id first (`ShardedDictionary.subscript`):
/// it grew the request table by about 110 bytes a job of a mixed load (heaptrack).
extension JobTable {
    /// Runs `body` on a request or poll job's attempt log in place; nil for other kinds and for
    /// a job no longer held.
    mutating func withAttemptLog<R>(_ id: JobID, _ body: (inout AttemptLog) -> R) -> R? {
        switch id.kind {
        case .request? where deliveries.contains(id): body(&deliveries[id]!.machine.log)
        case .poll? where polls.contains(id): body(&polls[id]!.machine.log)
        default: nil
        }
    }

    /// Records the request job that a countdown's expiry or a group's end started.
    mutating func setSpawned(_ spawned: JobID, of id: JobID) {
        switch id.kind {
        case .countdown? where countdowns.contains(id): countdowns[id]!.machine.spawned = spawned
        case .group? where groups.contains(id): groups[id]!.machine.spawned = spawned
        default: break
        }
    }
}
