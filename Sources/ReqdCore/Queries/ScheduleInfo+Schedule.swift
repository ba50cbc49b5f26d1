import ReqdProtocol

extension ScheduleInfo {
    /// The wire view of a schedule: its rule, next three elapses (none once it has ended), and its runs.
    init(_ schedule: Schedule, active: Bool) {
        let request = schedule.request?.value.request
        self.init(
            expression: schedule.rule.normalized, zone: schedule.rule.zone, overlap: schedule.overlap, catchUp: schedule.catchUp,
            randomizedDelayMs: schedule.randomizedDelay > 0 ? schedule.randomizedDelay / 1_000_000 : nil, paused: schedule.paused,
            next: active ? schedule.upcoming(3) : [], lastElapse: schedule.lastElapse, lastLateByMs: schedule.lastLateBy.map { Double($0) / 1e6 },
            runs: schedule.runs, skipped: schedule.skipped, missed: schedule.missed, running: schedule.running?.rawValue,
            lastRun: schedule.lastRun?.rawValue, lastOutcome: schedule.lastOutcome,
            request: request.map { OnExpireInfo(method: $0.method, url: $0.url, headerNames: $0.headers.map(\.name), job: nil) })
    }
}
