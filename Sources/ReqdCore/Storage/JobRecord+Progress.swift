import ReqdProtocol

extension JobRecord {
    /// The record's changing columns.
    public var progress: JobProgress {
        let detail = detail
        let counters: JobProgress.Counters =
            if let poll = detail.poll {
                .poll(poll.counters)
            } else if let request = detail.request {
                .delivery(request.counters)
            } else if let group = detail.group {
                .group(group.counters)
            } else if let schedule = detail.schedule {
                .schedule(schedule.counters)
            } else {
                .none
            }
        return JobProgress(
            state: state, endedAt: endedAt, reason: reason, replacedBy: replacedBy, lateByNanos: lateByNanos,
            result: detail.result, error: detail.error, spawned: detail.spawned, counters: counters)
    }

    /// Sets the record's changing columns, as the store's `UPDATE` does; counters of another kind
    /// than the record's are ignored.
    public mutating func apply(_ progress: JobProgress) {
        state = progress.state
        endedAt = progress.endedAt
        reason = progress.reason
        replacedBy = progress.replacedBy
        lateByNanos = progress.lateByNanos
        var detail = detail
        detail.result = progress.result
        detail.error = progress.error
        detail.spawned = progress.spawned
        switch progress.counters {
        case .none: break
        case .poll(let counters): detail.poll?.counters = counters
        case .delivery(let counters): detail.request?.counters = counters
        case .group(let counters): detail.group?.counters = counters
        case .schedule(let counters): detail.schedule?.counters = counters
        }
        self.detail = detail
    }
}
