/// How long ended jobs stay visible: for the retention period, and at most so many of them.
extension JobTable {
    /// Starts an ended job's retention.
    mutating func retain(_ id: JobID, endedAt: Instant) {
        retained.append((id, endedAt))
    }

    /// Takes the ended jobs to forget now, oldest first: those whose retention has passed at
    /// `now`, and the oldest beyond `maxRetained`. A job put back by `retry` since it ended, or
    /// dead-lettered, is not among them (dead letters leave through the timer).
    mutating func expired(at now: Instant, retention: Int64, maxRetained: Int) -> [JobID] {
        var due: [JobID] = []
        while retainedHead < retained.count,
            retained.count - retainedHead > maxRetained || retained[retainedHead].endedAt.advanced(by: retention) <= now
        {
            let id = retained[retainedHead].id
            retainedHead += 1
            if let header = headers[id], header.state != .active, header.state != .dead { due.append(id) }
            if retainedHead > 1024, retainedHead * 2 > retained.count {
                retained.removeFirst(retainedHead)
                retainedHead = 0
            }
        }
        return due
    }
}
