import ReqdProtocol

/// A poll job's events, in the vocabulary every kind shares.
extension Poll {
    /// Starts the next request when it is due, and plans the poll's next need for the timer.
    mutating func advance(_ id: JobID, at now: Instant, configuration: SchedulerConfiguration) -> JobAction {
        var action = JobAction()
        if let attempt = startIfDue(at: now, timeout: configuration.requestTimeoutNanos) {
            action.wire = [.send(HTTPSend(job: id, attempt: attempt, request: request, parseJSON: wantsJSON, keepHeaders: true))]
        }
        action.deadline = nextFire.map { .set($0) } ?? .clear
        return action
    }

    /// Handles the poll's timer: the end of its time limit, or an unanswered request.
    mutating func timerFired(at now: ClockReading, configuration: SchedulerConfiguration) -> JobAction {
        if let deadline, deadline <= now.instant {
            return JobAction(end: JobEnd(.timedOut, error: "the time limit of \(DurationText.format(nanoseconds: timeout ?? 0)) ran out"))
        }
        guard inFlight, let requestDeadline, requestDeadline <= now.instant else { return .none }
        let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
        var action = answered(.failure("no answer within \(waited)"), address: nil, at: now, configuration: configuration)
        action.wire.insert(.abort(attempt: attempts), at: 0)
        action.timedOut = [String(RequestURL.origin(request.url))]
        return action
    }

    /// Handles the end of the poll's request; nil when it is not the request out now.
    mutating func httpFinished(
        attempt: UInt32, _ outcome: HTTPOutcome, address: String? = nil, at now: ClockReading, configuration: SchedulerConfiguration
    ) -> JobAction? {
        guard inFlight, attempts == attempt else { return nil }
        return answered(outcome, address: address, at: now, configuration: configuration)
    }

    /// Counts an answer, logs the request, reports progress, and ends the job or keeps it going.
    private mutating func answered(
        _ outcome: HTTPOutcome, address: String?, at now: ClockReading, configuration: SchedulerConfiguration
    ) -> JobAction {
        let entry = AttemptInfo(number: attempts, started: lastStart ?? now.instant, outcome, address: address, at: now)
        let finished = finish(outcome, at: now.instant, maxBackoff: configuration.maxPollBackoffNanos)
        var action = JobAction()
        action.attempt = entry
        if let stale = finished.staleProgress {
            action.debug.append("dropped stale progress \(stale) (already at \(progress ?? 0))")
        }
        action.notes = [JobNote(finished.advanced ? .progress : .polled, status: finished.answer?.status, error: finished.failure)]
        // A poll's result keeps no headers: its attempt log has them.
        var result = finished.answer.map { $0.kept(configuration.resultBodyBytes) }
        result?.headers = nil
        switch finished.step {
        case .next:
            action.persist = [.pollCounters]
        case .succeeded:
            action.result = result
            action.end = JobEnd(.succeeded)
        case .failed(let why):
            action.result = result
            action.end = JobEnd(.failed, error: why)
        case .timedOut(let why):
            action.result = result
            action.end = JobEnd(.timedOut, error: why)
        }
        return action
    }
}
