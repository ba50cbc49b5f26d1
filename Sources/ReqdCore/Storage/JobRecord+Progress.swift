import ReqdProtocol

extension JobRecord {
    /// The record's changing columns.
    public var progress: JobProgress {
        guard let detail = storedDetail else {
            return JobProgress(
                state: state, endedAt: endedAt, reason: reason, replacedBy: replacedBy, lateByNanos: lateByNanos,
                result: nil, error: nil, spawned: nil, counters: .none)
        }
        return JobProgress(
            state: state, endedAt: endedAt, reason: reason, replacedBy: replacedBy, lateByNanos: lateByNanos,
            result: detail.value.result, error: detail.value.error, spawned: detail.value.spawned, counters: detail.value.counters)
    }

    /// Sets the record's changing columns, as the store's `UPDATE` does; counters of another kind
    /// than the record's are ignored.
    public mutating func apply(_ progress: JobProgress) {
        state = progress.state
        endedAt = progress.endedAt
        reason = progress.reason
        replacedBy = progress.replacedBy
        lateByNanos = progress.lateByNanos
        // A job with no detail that gets none (a countdown's progress, every row at a restart)
        // leaves it as it is, without building one.
        if storedDetail == nil, progress.result == nil, progress.error == nil, progress.spawned == nil { return }
        var detail = detail
        detail.result = progress.result
        detail.error = progress.error
        detail.spawned = progress.spawned
        detail.setCounters(progress.counters)
        self.detail = detail
    }
}
