import ReqdCore
import ReqdProtocol

/// What a failed commit keeps to write again: each job's changes folded to the latest, so a store
/// that stays down does not make the list grow.
extension JobStore {
    /// Whether a failed commit keeps `change` to write again. Every change is kept but the insert
    /// of a registration, which its barrier refuses: a spawned job (a countdown's `on_expire`, a
    /// report, a schedule's run) starts whether or not its row was written, and its parent's end,
    /// which names it, is kept, so its row must follow even if the job never changes again.
    static func keptOnFailure(_ change: StoreChange) -> Bool {
        guard case .insert(let record) = change else { return true }
        return record.detail.request?.settings.parent != nil
    }

    /// The changes folded to the latest per job (and per group member, with each job's last few
    /// attempts), in the order of those last changes; a poll's counters that follow its progress
    /// are merged into it, and a job's changes that follow its insert into the inserted row.
    static func latestPerJob(_ changes: [StoreChange]) -> [StoreChange] {
        var merged: [String: (order: Int, change: StoreChange)] = [:]
        var members: [String: [Int: (order: Int, change: StoreChange)]] = [:]
        var attemptChanges: [String: [(order: Int, change: StoreChange)]] = [:]
        for (order, change) in changes.enumerated() {
            let id = change.jobID
            // A kept insert (a spawned job's) takes its job's later changes of its row into it.
            if case (let first, .insert(var record))? = merged[id] {
                switch change {
                case .progress, .pollCounters, .groupMember:
                    _ = record.apply(change)
                    merged[id] = (first, .insert(record))
                    continue
                case .insert, .attempt, .attemptAddress, .delete:
                    break
                }
            }
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
}
