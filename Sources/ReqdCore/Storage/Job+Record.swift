import ReqdProtocol

extension Job {
    /// A job read from the store, as it resumes at `now`: deadlines back on the boot-time clock,
    /// counters kept; nil for a row that cannot be read back.
    init?(_ record: JobRecord, at now: ClockReading, maxPollBackoff: Int64, zones: ZoneProvider = .utcOnly) {
        var rules = RestoredRules()
        self.init(record, at: now, maxPollBackoff: maxPollBackoff, zones: zones, rules: &rules)
    }

    /// A job read from the store, as `init(_:at:maxPollBackoff:zones:)` says, its schedule's rule
    /// taken from `rules` when a row read before it parsed the same one.
    init?(_ record: JobRecord, at now: ClockReading, maxPollBackoff: Int64, zones: ZoneProvider, rules: inout RestoredRules) {
        // Read through the box: copied out whole, a row's detail would cost a kilobyte's copy.
        let detail = record.storedDetail
        let work: Work
        switch record.kind {
        case .countdown:
            guard let deadline = record.deadline, let tick = record.tickNanos, tick > 0 else { return nil }
            let expiry = now.instant(at: deadline)
            work = .countdown(
                Countdown(
                    deadline: expiry, tick: tick, lateBy: record.lateByNanos,
                    onExpire: detail?.value.onExpire.map { Box($0.delivery(firstAttempt: expiry)) },
                    spawned: detail?.value.spawned.map(JobID.init)))
        case .poll:
            guard var poll = detail?.value.poll?.resumed(at: now, createdAt: record.createdAt, maxBackoff: maxPollBackoff) else { return nil }
            if let attempts = record.attempts { poll.log = AttemptLog(written: attempts) }
            // An ended poll read back keeps its condition as one that ended here does.
            if record.state != .active { poll.condition = poll.condition.retired }
            work = .poll(poll)
        case .request:
            guard let delivery = detail?.value.request?.resumed(of: JobID(record.id), at: now, createdAt: record.createdAt) else { return nil }
            work = .request(delivery)
        case .group:
            guard let group = detail?.value.group?.resumed(at: now, active: record.state == .active) else { return nil }
            work = .group(group)
        case .schedule:
            guard let schedule = detail?.value.schedule?.resumed(at: now, zones: zones, rules: &rules) else { return nil }
            work = .schedule(schedule)
        }
        self.init(
            id: JobID(record.id), owner: record.owner, key: record.key, scope: record.scope, durable: true,
            createdAt: record.createdAt, state: record.state, endedAt: record.endedAt, reason: record.reason,
            replacedBy: record.replacedBy.map(JobID.init), result: detail?.value.result, error: detail?.value.error, work: work)
    }
}
