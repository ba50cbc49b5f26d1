/// How long ended jobs stay visible: for the retention period, and at most so many of them.
extension JobTable {
    /// Starts an ended job's retention.
    mutating func retain(_ id: JobID, endedAt: Instant) {
        retained.append((id, endedAt))
    }

    /// Takes the ended jobs to forget now, oldest first: those whose retention has passed at
    /// `now`, and the oldest beyond `maxRetained`. An end that `retry` undid does not count: a job
    /// put back since is not among them (nor a dead letter: those leave through the timer), and
    /// one that ended again goes by its last end.
    mutating func expired(at now: Instant, retention: Int64, maxRetained: Int) -> [JobID] {
        var due: [JobID] = []
        while retainedHead < retained.count,
            retained.count - retainedHead - staleRetainedCount > maxRetained
                || retained[retainedHead].endedAt.advanced(by: retention) <= now
        {
            let id = retained[retainedHead].id
            retainedHead += 1
            if let stale = staleRetained[id] {
                staleRetained[id] = stale > 1 ? stale - 1 : nil
                staleRetainedCount -= 1
            } else if let header = self[id], header.state != .active, header.state != .dead {
                due.append(id)
            }
            if retainedHead > 1024, retainedHead * 2 > retained.count {
                retained.removeFirst(retainedHead)
                retainedHead = 0
            }
        }
        return due
    }
}
