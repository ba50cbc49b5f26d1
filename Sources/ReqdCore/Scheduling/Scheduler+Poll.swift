import ReqdProtocol

extension Scheduler {
    /// Validates a poll job and starts it, or stages it until the store has it when it is durable.
    mutating func registerPoll(
        _ spec: PollSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let poll: Poll
        do {
            try validateRegistration(key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral, bindConnection: spec.bindConnection)
            poll = try makePoll(spec, at: now)
            try checkCapacity()
        } catch {
            return .failure(error)
        }
        let job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .poll(poll), at: now)
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    private func makePoll(_ spec: PollSpec, at now: ClockReading) throws(SchedulerError) -> Poll {
        let request = try validatedRequest(method: spec.method, url: spec.url, headers: spec.headers, body: spec.body)
        let every = try milliseconds("every_ms", spec.everyMs, atLeast: configuration.minPollEveryNanos)
        let condition: PollCondition
        do {
            condition = try PollCondition(parsing: spec.until)
        } catch {
            throw SchedulerError(.badCondition, "'until' \(error.description)", column: error.column)
        }
        var pointer: JSONPointer?
        if let text = spec.progress {
            guard let parsed = JSONPointer(text), !text.isEmpty else {
                throw SchedulerError(
                    .badCondition, "'progress' must be a JSON Pointer such as /progress, got '\(text.prefix(64))'")
            }
            pointer = parsed
        }
        let timeout = try spec.timeoutMs.map { value throws(SchedulerError) in
            try milliseconds("timeout_ms", value, atLeast: 1)
        }
        if let maxPolls = spec.maxPolls, maxPolls < 1 {
            throw SchedulerError(.badField, "'max_polls' must be at least 1, got \(maxPolls)")
        }
        let maxFailures = spec.maxFailures ?? configuration.defaultMaxFailures
        guard maxFailures >= 1 else {
            throw SchedulerError(.badField, "'max_failures' must be at least 1, got \(maxFailures)")
        }
        return Poll(
            request: request, every: every, condition: condition, progressPointer: pointer, timeout: timeout,
            deadline: timeout.map { now.instant.advanced(by: $0) }, maxPolls: spec.maxPolls, maxFailures: maxFailures,
            firstStart: now.instant)
    }

    /// A request a client described, validated, with its body within the configured limit.
    func validatedRequest(method: String?, url: String, headers: [String]?, body: String?) throws(SchedulerError) -> HTTPRequestSpec {
        let request = try HTTPRequestSpec.validated(method: method, url: url, headers: headers, body: body)
        if let body = request.body, body.count > configuration.maxRequestBodyBytes {
            throw SchedulerError(.badField, "'body' is larger than \(configuration.maxRequestBodyBytes) bytes")
        }
        return request
    }

    /// A positive duration field in milliseconds, as nanoseconds within the configured bounds.
    func milliseconds(_ field: String, _ value: Int64, atLeast minimum: Int64) throws(SchedulerError) -> Int64 {
        let (nanos, overflow) = value.multipliedReportingOverflow(by: 1_000_000)
        guard value > 0, !overflow, nanos >= minimum, nanos <= configuration.maxDurationNanos else {
            throw SchedulerError(
                .badDuration,
                "'\(field)' must be between \(max(1, minimum / 1_000_000)) and \(configuration.maxDurationNanos / 1_000_000) ms, got \(value)"
            )
        }
        return nanos
    }

    /// Puts a poll's next need for the timer in the heap, or starts its request at once when it is due.
    mutating func schedulePoll(_ id: JobID, at now: ClockReading, startIfDue: Bool, into effects: inout [SchedulerEffect]) {
        guard var job = jobs[id], job.state == .active, var poll = job.poll else { return }
        if startIfDue, !poll.inFlight, poll.nextStart <= now.instant, poll.deadline.map({ $0 > now.instant }) ?? true {
            poll.attempts += 1
            poll.lastStart = now.instant
            poll.requestDeadline = now.instant.advanced(by: configuration.requestTimeoutNanos)
            job.poll = poll
            jobs[id] = job
            effects.append(
                .send(HTTPSend(job: id, attempt: poll.attempts, request: poll.request, parseJSON: poll.wantsJSON)))
        }
        if let next = poll.nextFire {
            timers.set(.job(id), priority: next)
        } else {
            timers.remove(.job(id))
        }
    }

    /// Handles a poll's timer: the end of its time limit, an unanswered request, or the start of its next request.
    mutating func firePoll(_ job: Job, _ poll: Poll, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let deadline = poll.deadline, deadline <= now.instant {
            var ended = job
            ended.error = "the time limit of \(DurationText.format(nanoseconds: poll.timeout ?? 0)) ran out"
            finish(ended, as: .timedOut, reason: nil, replacedBy: nil, at: now, into: &effects)
            return
        }
        if poll.inFlight, let requestDeadline = poll.requestDeadline, requestDeadline <= now.instant {
            effects.append(.abort(job.id, attempt: poll.attempts))
            let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
            pollFinished(job.id, attempt: poll.attempts, outcome: .failure("no answer within \(waited)"), at: now, into: &effects)
            return
        }
        schedulePoll(job.id, at: now, startIfDue: true, into: &effects)
    }

    /// Handles the end of a poll's request: counts it, reports progress, and ends the job or plans the next one.
    mutating func pollFinished(
        _ id: JobID, attempt: UInt32, outcome: HTTPOutcome, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard var job = jobs[id], job.state == .active, var poll = job.poll, poll.inFlight, poll.attempts == attempt
        else { return }
        poll.polls += 1
        poll.requestDeadline = nil
        let started = poll.lastStart ?? now.instant
        var answer: HTTPAnswer?
        var failure: String?
        switch outcome {
        case .failure(let message), .unreachable(let message):
            failure = message
        case .response(let response):
            answer = response
            poll.lastStatus = response.status
            if response.status >= 500 {
                failure = "the server answered \(response.status)"
            } else if response.status == 429 {
                failure = "the server answered 429 (too many requests)"
            } else if poll.condition.needsJSON, response.json == nil {
                failure = "the answer's body is not JSON"
            }
        }
        var advanced = false
        var satisfied = false
        if let failure {
            poll.failures += 1
            poll.lastError = failure
            poll.nextStart = max(started.advanced(by: poll.backoff(cap: configuration.maxPollBackoffNanos)), now.instant)
        } else if let answer {
            poll.failures = 0
            if let pointer = poll.progressPointer, let json = answer.json, case .number(let value)? = pointer.resolve(in: json) {
                if let current = poll.progress, value < current {
                    effects.append(.debug(id, "dropped stale progress \(value) (already at \(current))"))
                } else if poll.progress != value {
                    poll.progress = value
                    advanced = true
                }
            }
            satisfied = poll.condition.holds(status: answer.status, body: answer.json)
            poll.nextStart = max(started.advanced(by: poll.every), now.instant)
        }
        job.poll = poll
        jobs[id] = job

        let recipients = recipients(of: job)
        if !recipients.isEmpty {
            var event = makeEvent(advanced ? .progress : .polled, job, at: now)
            event.status = answer?.status
            event.error = failure
            effects.append(.deliver(event, to: recipients))
        }

        if satisfied {
            job.result = answer.map(makeResult)
            finish(job, as: .succeeded, reason: nil, replacedBy: nil, at: now, into: &effects)
        } else if poll.failures >= poll.maxFailures {
            job.result = answer.map(makeResult)
            job.error = "\(poll.failures) polls in a row failed; the last: \(failure ?? "unknown")"
            finish(job, as: .failed, reason: nil, replacedBy: nil, at: now, into: &effects)
        } else if let maxPolls = poll.maxPolls, poll.polls >= maxPolls {
            job.result = answer.map(makeResult)
            job.error = "the condition did not hold within \(maxPolls) polls"
            finish(job, as: .timedOut, reason: nil, replacedBy: nil, at: now, into: &effects)
        } else {
            if job.durable { effects.append(.persist(.pollCounters(id.rawValue, PollCounters(poll, at: now)))) }
            schedulePoll(id, at: now, startIfDue: true, into: &effects)
        }
    }

    /// The part of an answer a job keeps: its status and the start of its body, cut on a character boundary.
    func makeResult(_ answer: HTTPAnswer) -> HTTPResult { Self.result(of: answer, keeping: configuration.resultBodyBytes) }

    /// The part of an answer a job keeps, with at most `limit` bytes of its body.
    static func result(of answer: HTTPAnswer, keeping limit: Int) -> HTTPResult {
        var end = min(answer.body.count, limit)
        while end > 0, end < answer.body.count, answer.body[end] & 0xC0 == 0x80 { end -= 1 }
        return HTTPResult(
            status: answer.status, headers: answer.headers?.map { "\($0.name): \($0.value)" },
            body: String(decoding: answer.body[..<end], as: UTF8.self), truncated: end < answer.body.count)
    }
}
