/// Changes to a part that more than one kind of machine has, made in the table of the id's kind
/// with one lookup, and only when the job is there.
///
/// A change through every table that might hold the id (`deliveries[id]?.machine.log.append(…)`
/// and then `polls[id]?…`) looks the id up in each, and in the `Dictionary` tables before the
/// slabs it made room for the id in those that lacked it: about 110 bytes a job of a mixed load
/// (heaptrack). The id's kind names its one table.
extension JobTable {
    /// Runs `body` on a request or poll job's attempt log in place; nil for other kinds and for
    /// a job no longer held.
    mutating func withAttemptLog<R>(_ id: JobID, _ body: (inout AttemptLog) -> R) -> R? {
        switch id.kind {
        case .request?: deliveries.modify(id) { body(&$0.machine.log) }
        case .poll?: polls.modify(id) { body(&$0.machine.log) }
        default: nil
        }
    }

    /// Records the request job that a countdown's expiry or a group's end started.
    mutating func setSpawned(_ spawned: JobID, of id: JobID) {
        switch id.kind {
        case .countdown?: countdowns.modify(id) { $0.machine.spawned = spawned }
        case .group?: groups.modify(id) { $0.machine.spawned = spawned }
        default: break
        }
    }

    /// Lets an ended job's machine drop what only a running one reads: a poll's parsed condition.
    mutating func retireMachine(_ id: JobID) {
        guard id.kind == .poll else { return }
        polls.modify(id) { $0.machine.condition = $0.machine.condition.retired }
    }
}
