import ReqdProtocol

extension CountdownSpec {
    /// The countdown this registration asks for, starting at `now`, or why it cannot be.
    func validated(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Countdown {
        try limits.validateRegistration(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection)
        let duration: Int64
        switch (durationMs, until) {
        case (.some, .some):
            throw SchedulerError(.conflictingFields, "give either 'duration_ms' or 'until', not both")
        case (nil, nil):
            throw SchedulerError(.missingField, "missing field 'duration_ms' (or 'until')")
        case (let milliseconds?, nil):
            guard milliseconds > 0 else {
                throw SchedulerError(.badDuration, "'duration_ms' must be positive, got \(milliseconds)")
            }
            let (nanos, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow, nanos <= limits.maxDurationNanos else {
                throw SchedulerError(
                    .badDuration,
                    "'duration_ms' \(milliseconds) is longer than the limit of \(limits.maxDurationNanos / 1_000_000) ms")
            }
            duration = nanos
        case (nil, let until?):
            let (nanos, overflow) = until.nanosecondsSinceEpoch.subtractingReportingOverflow(now.wall.nanosecondsSinceEpoch)
            guard !overflow, nanos > 0 else {
                throw SchedulerError(.badDuration, "'until' \(until.rfc3339) is not in the future")
            }
            guard nanos <= limits.maxDurationNanos else {
                throw SchedulerError(.badDuration, "'until' \(until.rfc3339) is further away than the limit allows")
            }
            duration = nanos
        }
        var tick = limits.defaultTickNanos
        if let tickMs {
            let (nanos, overflow) = tickMs.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow, nanos >= limits.minTickNanos, nanos <= limits.maxDurationNanos else {
                throw SchedulerError(
                    .badDuration,
                    "'tick_ms' must be between \(limits.minTickNanos / 1_000_000) and \(limits.maxDurationNanos / 1_000_000), got \(tickMs)")
            }
            tick = nanos
        }
        var countdown = Countdown(deadline: now.instant.advanced(by: duration), tick: tick, lateBy: nil)
        if let onExpire {
            countdown.onExpire = Box(try onExpire.delivery(field: "on_expire.", firstAttempt: countdown.deadline, limits: limits))
        }
        return countdown
    }
}

extension CountdownSpec: JobSpec {
    var options: JobOptions {
        JobOptions(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection, follow: follow)
    }

    func work(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Job.Work {
        .countdown(try validated(at: now, limits: limits))
    }
}
