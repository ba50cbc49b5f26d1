import ReqdCore
import ReqdProtocol

/// What a failed commit keeps to write again: each job's changes folded to the latest, so a store
/// that stays down does not make the list grow.
extension JobStore {
    /// The changes folded to the latest per job (and per group member, with each job's last few
    /// attempts), in the order of those last changes; a poll's counters that follow its progress
    /// are merged into it.
    static func latestPerJob(_ changes: [StoreChange]) -> [StoreChange] {
        var merged: [String: (order: Int, change: StoreChange)] = [:]
        var members: [String: [Int: (order: Int, change: StoreChange)]] = [:]
        var attemptChanges: [String: [(order: Int, change: StoreChange)]] = [:]
        for (order, change) in changes.enumerated() {
            let id = change.jobID
            switch change {
            case .pollCounters(_, let counters):
                if case .progress(_, var progress)? = merged[id]?.change {
                    progress.counters = .poll(counters)
                    merged[id] = (order, .progress(id, progress))
                } else {
                    merged[id] = (order, change)
                }
            case .groupMember(_, let index, _):
                members[id, default: [:]][index] = (order, change)
            case .attempt, .attemptAddress:
                // Every attempt is a row of its own: the last few of each job are kept, with
                // what sets their address, in order.
                var kept = attemptChanges[id, default: []]
                kept.append((order, change))
                if kept.count > 2 * AttemptInfo.kept { kept.removeFirst(kept.count - 2 * AttemptInfo.kept) }
                attemptChanges[id] = kept
            case .progress:
                // It carries every changing column, counters included.
                merged[id] = (order, change)
            case .insert:
                // A whole row supersedes every member change before it; its attempts live apart.
                members[id] = nil
                merged[id] = (order, change)
            case .delete:
                members[id] = nil
                attemptChanges[id] = nil
                merged[id] = (order, change)
            }
        }
        let kept = Array(merged.values) + members.values.flatMap(\.values) + attemptChanges.values.flatMap { $0 }
        return kept.sorted { $0.order < $1.order }.map(\.change)
    }

    /// `changes` split into what a commit writes and the attempts it keeps back: those of a job in
    /// `awaitingRow` (its insert failed) that the commit carries no row for, since an attempt is
    /// written only beside its job's row. A job's delete drops its kept attempts; `settled` are the
    /// jobs that leave `awaitingRow` once the commit holds.
    static func withholding(
        _ changes: [StoreChange], awaitingRow: Set<String>
    ) -> (written: [StoreChange], withheld: [StoreChange], settled: Set<String>) {
        guard !awaitingRow.isEmpty else { return (changes, [], []) }
        var settled: Set<String> = []
        for change in changes where awaitingRow.contains(change.jobID) {
            switch change {
            case .insert, .delete: settled.insert(change.jobID)
            default: break
            }
        }
        var written: [StoreChange] = []
        var withheld: [StoreChange] = []
        written.reserveCapacity(changes.count)
        for change in changes {
            switch change {
            case .attempt, .attemptAddress:
                if awaitingRow.contains(change.jobID) && !settled.contains(change.jobID) {
                    withheld.append(change)
                } else {
                    written.append(change)
                }
            default:
                written.append(change)
            }
        }
        return (written, withheld, settled)
    }
}
