import ReqdProtocol

/// A request job's events, in the vocabulary every kind shares.
///
/// The same `Delivery` also carries a group member's attempts; there the group's machine decides
/// (`Group+Machine.swift`), and an unreachable network is an ordinary failure.
extension Delivery {
    /// Starts the next attempt when it is due, unless the job is held or its target is
    /// (`holdReason`), and plans the job's next need for the timer.
    mutating func advance(_ id: JobID, at now: Instant, holdReason: String?, timeout: Int64) -> JobAction {
        guard !held else { return JobAction(deadline: .clear) }
        var action = JobAction()
        if !inFlight, nextAttempt <= now {
            if let holdReason { return hold(holdReason) }
            start(at: now, timeout: timeout)
            action.wire = [.send(HTTPSend(job: id, attempt: attempts, request: request.sent(by: id), parseJSON: false, keepHeaders: true))]
        }
        action.deadline = .set(nextFire)
        return action
    }

    /// Handles the job's timer: an attempt left unanswered past the request timeout fails.
    mutating func timerFired(at now: ClockReading, random: inout RandomSource, configuration: SchedulerConfiguration) -> JobAction {
        guard inFlight, let requestDeadline, requestDeadline <= now.instant else { return .none }
        let attempt = attempts
        let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
        var action = answered(
            .failure("no answer within \(waited)"), address: nil, at: now, jitter: random.unit(), configuration: configuration)
        action.wire.insert(.abort(attempt: attempt), at: 0)
        action.timedOut = [String(RequestURL.origin(request.url))]
        return action
    }

    /// Handles the end of an attempt; nil when it is not the attempt out now.
    mutating func httpFinished(
        attempt: UInt32, _ outcome: HTTPOutcome, address: String? = nil, at now: ClockReading, random: inout RandomSource,
        configuration: SchedulerConfiguration
    ) -> JobAction? {
        guard inFlight, attempts == attempt else { return nil }
        return answered(outcome, address: address, at: now, jitter: random.unit(), configuration: configuration)
    }

    /// The job succeeds, fails, is held, or plans its next attempt; all but a hold (which gives
    /// the attempt back) are logged (`JobAction.attempt`).
    private mutating func answered(
        _ outcome: HTTPOutcome, address: String?, at now: ClockReading, jitter: Double, configuration: SchedulerConfiguration
    ) -> JobAction {
        let (number, started) = (attempts, nextAttempt)
        let (step, answer) = finish(outcome, at: now, random: jitter, holding: true, maxRetryAfter: configuration.maxRetryAfterNanos)
        if case .held(let why) = step { return hold(why) }
        var action = JobAction(network: .reachable, result: answer.map { $0.kept(configuration.resultBodyBytes) })
        action.attempt = AttemptInfo(number: number, started: started, outcome, address: address, at: now)
        action.attempt?.shareHeaders(with: action.result)
        switch step {
        case .held:
            break
        case .succeeded:
            action.end = JobEnd(.succeeded, report: onSuccess?.value)
        case .failed(let why, let exhausted):
            action.end = JobEnd(exhausted ? .dead : .failed, error: why, report: onFailure?.value)
        case .retry(let why):
            action.notes = [JobNote(.retrying, status: answer?.status, error: why)]
            action.persist = [.progress]
        }
        return action
    }

    /// Holds the job because its target cannot be reached: no timer, no attempt spent, until a
    /// probe or a sign of the target releases it.
    mutating func hold(_ why: String) -> JobAction {
        held = true
        inFlight = false
        requestDeadline = nil
        lastError = why
        return JobAction(deadline: .clear, notes: [JobNote(.held, error: why, reason: .unreachable)], network: .unreachable(why))
    }

    /// Gives back the attempt out now and holds the job: its target was just found unreachable,
    /// so the attempt can no longer be answered (often it rides a pooled connection opened before
    /// the route went). Like any attempt in flight it may have arrived; it is sent again later.
    mutating func strand(_ why: String) -> JobAction {
        let attempt = attempts
        attempts -= 1
        var action = hold(why)
        action.wire = [.abort(attempt: attempt)]
        return action
    }

    /// Lets a held job go again: its next attempt is due at `at`.
    mutating func release(at: Instant) -> JobAction {
        held = false
        nextAttempt = at
        return JobAction(deadline: .set(at))
    }

    /// Puts a dead (or failed) job back in the queue with fresh attempts, the first one now.
    mutating func retry(at now: Instant) {
        attempts = 0
        nextAttempt = now
    }
}
