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
            result: detail.value.result, error: detail.value.error, spawned: detail.value.spawned, counters: Self.counters(of: detail.value))
    }

    /// The counters of the detail's kind.
    private static func counters(of detail: borrowing JobDetail) -> JobProgress.Counters {
        if let poll = detail.poll { return .poll(poll.counters) }
        if let request = detail.request { return .delivery(request.counters) }
        if let group = detail.group { return .group(group.counters) }
        if let schedule = detail.schedule { return .schedule(schedule.counters) }
        return .none
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
