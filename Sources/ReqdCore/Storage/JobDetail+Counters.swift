import ReqdProtocol

extension JobDetail {
    /// The counters of the detail's kind; `.none` for a kind without counters.
    var counters: JobProgress.Counters {
        if let poll { return .poll(poll.counters) }
        if let request { return .delivery(request.counters) }
        if let group { return .group(group.counters) }
        if let schedule { return .schedule(schedule.counters) }
        return .none
    }

    /// Sets the counters of the detail's kind; counters of another kind are ignored.
    mutating func setCounters(_ counters: JobProgress.Counters) {
        switch counters {
        case .none: break
        case .poll(let counters): poll?.counters = counters
        case .delivery(let counters): request?.counters = counters
        case .group(let counters): group?.counters = counters
        case .schedule(let counters): schedule?.counters = counters
        }
    }
}
