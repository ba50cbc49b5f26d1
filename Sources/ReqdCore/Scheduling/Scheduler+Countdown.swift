import ReqdProtocol

extension Scheduler {
    /// Validates a countdown and starts it, or stages it until the store has it when it is durable.
    mutating func registerCountdown(
        _ spec: CountdownSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        var countdown: Countdown
        do {
            try validateRegistration(key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral, bindConnection: spec.bindConnection)
            countdown = try makeCountdown(spec, at: now)
            if let onExpire = spec.onExpire {
                countdown.onExpire = Box(try makeDelivery(onExpire, field: "on_expire.", firstAttempt: countdown.deadline))
            }
            try checkCapacity()
        } catch {
            return .failure(error)
        }
        let job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .countdown(countdown), at: now)
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    private func makeCountdown(_ spec: CountdownSpec, at now: ClockReading) throws(SchedulerError) -> Countdown {
        let duration: Int64
        switch (spec.durationMs, spec.until) {
        case (.some, .some):
            throw SchedulerError(.conflictingFields, "give either 'duration_ms' or 'until', not both")
        case (nil, nil):
            throw SchedulerError(.missingField, "missing field 'duration_ms' (or 'until')")
        case (let milliseconds?, nil):
            guard milliseconds > 0 else {
                throw SchedulerError(.badDuration, "'duration_ms' must be positive, got \(milliseconds)")
            }
            let (nanos, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow, nanos <= configuration.maxDurationNanos else {
                throw SchedulerError(
                    .badDuration,
                    "'duration_ms' \(milliseconds) is longer than the limit of \(configuration.maxDurationNanos / 1_000_000) ms")
            }
            duration = nanos
        case (nil, let until?):
            let (nanos, overflow) = until.nanosecondsSinceEpoch.subtractingReportingOverflow(now.wall.nanosecondsSinceEpoch)
            guard !overflow, nanos > 0 else {
                throw SchedulerError(.badDuration, "'until' \(until.rfc3339) is not in the future")
            }
            guard nanos <= configuration.maxDurationNanos else {
                throw SchedulerError(.badDuration, "'until' \(until.rfc3339) is further away than the limit allows")
            }
            duration = nanos
        }
        var tick = configuration.defaultTickNanos
        if let tickMs = spec.tickMs {
            let (nanos, overflow) = tickMs.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow, nanos >= configuration.minTickNanos, nanos <= configuration.maxDurationNanos else {
                throw SchedulerError(
                    .badDuration,
                    "'tick_ms' must be between \(configuration.minTickNanos / 1_000_000) and \(configuration.maxDurationNanos / 1_000_000), got \(tickMs)")
            }
            tick = nanos
        }
        return Countdown(deadline: now.instant.advanced(by: duration), tick: tick, lateBy: nil)
    }

    /// The next instant a countdown needs the timer: its next tick when someone watches it, else its deadline.
    ///
    /// Ticks fall where the time left is a whole multiple of the tick, strictly after `now`, so a
    /// countdown that was suspended past several ticks gets one tick (or its expiry), never a burst.
    func nextCountdownFire(_ job: Job, _ countdown: Countdown, at now: Instant) -> Instant {
        let remaining = countdown.deadline.nanoseconds(since: now)
        guard remaining > 0, isWatched(job) else { return countdown.deadline }
        let wholeTicks = (remaining - 1) / countdown.tick
        return wholeTicks >= 1 ? countdown.deadline.advanced(by: -wholeTicks * countdown.tick) : countdown.deadline
    }

    /// Puts a countdown's next fire in the timer heap.
    mutating func scheduleCountdown(_ job: Job, at now: Instant) {
        guard let countdown = job.countdown, job.state == .active else { return }
        timers.set(.job(job.id), priority: nextCountdownFire(job, countdown, at: now))
    }

    /// Handles a countdown's timer: expiry once the deadline has passed, otherwise one tick.
    mutating func fireCountdown(
        _ job: Job, _ countdown: Countdown, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        let remaining = countdown.deadline.nanoseconds(since: now.instant)
        if remaining <= 0 {
            var expired = job
            expired.countdown?.lateBy = -remaining
            let spawned = countdown.onExpire.map { spawnedJob($0.value, of: job, at: now) }
            expired.countdown?.spawned = spawned?.id
            finish(expired, as: .expired, reason: nil, replacedBy: nil, at: now, into: &effects)
            if let spawned { start(spawned, at: now, into: &effects) }
            return
        }
        let recipients = recipients(of: job)
        if !recipients.isEmpty {
            var event = makeEvent(.tick, job, at: now)
            event.remainingMs = Instant.roundedMilliseconds(remaining)
            effects.append(.deliver(event, to: recipients))
        }
        scheduleCountdown(job, at: now.instant)
    }
}
