import ReqdProtocol

extension Scheduler {
    /// Validates a `submit` and starts its request job, or stages it until the store has it; an
    /// identical request inside the dedupe window gets the job it made instead.
    mutating func submit(
        _ spec: SubmitSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        var delivery: Delivery
        let window: Int64
        do {
            try validateRegistration(key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral, bindConnection: spec.bindConnection)
            delivery = try makeDelivery(spec.request, field: "", firstAttempt: now.instant)
            delivery.onSuccess = try spec.onSuccess.map { report throws(SchedulerError) in
                Box(try makeDelivery(Self.reporting(report), field: "on_success.", firstAttempt: now.instant))
            }
            delivery.onFailure = try spec.onFailure.map { report throws(SchedulerError) in
                Box(try makeDelivery(Self.reporting(report), field: "on_failure.", firstAttempt: now.instant))
            }
            window = try dedupeWindow(spec)
        } catch {
            return .failure(error)
        }
        var fingerprint: DedupeKey?
        if window > 0 {
            let key = DedupeKey(owner: peer.uid, request: delivery.request, headerNames: spec.dedupeHeaders ?? [])
            if let existing = dedupe[key] {
                if let job = jobs[existing] {
                    return .success(duplicateReply(job, connection, requestID, follow: spec.follow ?? false, at: now))
                }
                if staged[existing] != nil {
                    let token = nextCommitToken()
                    pendingCommits[token] = .duplicate(connection, requestID, existing, follow: spec.follow ?? false)
                    effects.append(.commitBarrier(token))
                    return nil
                }
            }
            fingerprint = key
        }
        do {
            try checkCapacity()
        } catch {
            return .failure(error)
        }
        var job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .request(delivery), at: now)
        let id = job.id
        job.delivery?.request.addIdempotencyKey(id)
        if let fingerprint { rememberDedupe(fingerprint, job: job.id, until: now.instant.advanced(by: window)) }
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    /// A request and its retry policy from a client's description; `field` prefixes field names in errors.
    func makeDelivery(_ spec: RequestSpec, field: String, firstAttempt: Instant) throws(SchedulerError) -> Delivery {
        let request = try validatedRequest(method: spec.method, url: spec.url, headers: spec.headers, body: spec.body)
        let maxAttempts = spec.maxAttempts ?? configuration.defaultMaxAttempts
        guard (1...1000).contains(maxAttempts) else {
            throw SchedulerError(.badField, "'\(field)max_attempts' must be between 1 and 1000, got \(maxAttempts)")
        }
        let backoffMin = try spec.backoffMinMs.map { value throws(SchedulerError) in
            try milliseconds("\(field)backoff_min_ms", value, atLeast: 1)
        } ?? configuration.defaultBackoffMinNanos
        let backoffMax = try spec.backoffMaxMs.map { value throws(SchedulerError) in
            try milliseconds("\(field)backoff_max_ms", value, atLeast: 1)
        } ?? max(backoffMin, configuration.defaultBackoffMaxNanos)
        guard backoffMin <= backoffMax else {
            throw SchedulerError(.badDuration, "'\(field)backoff_min_ms' must not be above '\(field)backoff_max_ms'")
        }
        var delivery = Delivery(
            request: request, maxAttempts: maxAttempts, backoffMin: backoffMin, backoffMax: backoffMax, parent: nil,
            firstAttempt: firstAttempt)
        if let entries = spec.retryOn { delivery.retryOn = try RetryStatuses(parsing: entries) }
        delivery.maxRetryAfter = configuration.maxRetryAfterNanos
        return delivery
    }

    /// A report request (`on_success`, `on_failure`, `on_complete`): POST unless it says otherwise,
    /// with a JSON content type unless it names one.
    static func reporting(_ spec: RequestSpec) -> RequestSpec {
        var report = spec
        report.method = report.method ?? "POST"
        if !(report.headers ?? []).contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            report.headers = (report.headers ?? []) + ["Content-Type: application/json"]
        }
        return report
    }

    /// Starts a request job's next attempt when it is due, and puts its next need for the timer in the heap.
    mutating func scheduleDelivery(_ id: JobID, at now: ClockReading, startIfDue: Bool, into effects: inout [SchedulerEffect]) {
        guard var job = jobs[id], job.state == .active, var delivery = job.delivery else { return }
        if startIfDue, !delivery.inFlight, delivery.nextAttempt <= now.instant {
            if let why = holdReason(id, delivery) {
                hold(id, why: why, at: now, into: &effects)
                return
            }
            delivery.start(at: now.instant, timeout: configuration.requestTimeoutNanos)
            job.delivery = delivery
            jobs[id] = job
            effects.append(
                .send(HTTPSend(job: id, attempt: delivery.attempts, request: delivery.request, parseJSON: false, keepHeaders: true)))
        }
        timers.set(.job(id), priority: delivery.nextFire)
    }

    /// Handles a request job's timer: an unanswered attempt, or the start of the next one.
    mutating func fireDelivery(_ job: Job, _ delivery: Delivery, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if delivery.inFlight, let deadline = delivery.requestDeadline, deadline <= now.instant {
            effects.append(.abort(job.id, attempt: delivery.attempts))
            let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
            deliveryFinished(
                job.id, attempt: delivery.attempts, outcome: .failure("no answer within \(waited)"), at: now, into: &effects)
            return
        }
        scheduleDelivery(job.id, at: now, startIfDue: true, into: &effects)
    }

    /// Handles the end of an attempt: the job succeeds, fails, or plans its next attempt.
    mutating func deliveryFinished(
        _ id: JobID, attempt: UInt32, outcome: HTTPOutcome, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard var job = jobs[id], job.state == .active, var delivery = job.delivery, delivery.inFlight,
            delivery.attempts == attempt
        else { return }
        let (step, answer) = delivery.finish(outcome, at: now, random: random.unit(), holding: true)
        job.delivery = delivery
        job.result = answer.map(makeResult) ?? job.result
        if case .held(let why) = step {
            jobs[id] = job
            hold(id, why: why, at: now, into: &effects)
            return
        }
        targetReachable(delivery, at: now, into: &effects)
        let state: JobState
        switch step {
        case .held:
            return
        case .succeeded:
            state = .succeeded
        case .failed(let why, let exhausted):
            job.error = why
            state = exhausted ? .dead : .failed
        case .retry(let why):
            jobs[id] = job
            let recipients = recipients(of: job)
            if !recipients.isEmpty {
                var event = makeEvent(.retrying, job, at: now)
                event.status = answer?.status
                event.error = why
                effects.append(.deliver(event, to: recipients))
            }
            if job.durable { effects.append(.persist(.update(record(of: job, at: now)))) }
            scheduleDelivery(id, at: now, startIfDue: true, into: &effects)
            return
        }
        let report = state == .succeeded ? delivery.onSuccess : delivery.onFailure
        let spawned = report.map { template in
            var request = template.value
            request.request.body = Array(Self.outcomeJSON(job, state: state).jsonText.utf8)
            return spawnedJob(request, of: job, at: now)
        }
        finish(job, as: state, reason: nil, replacedBy: nil, at: now, into: &effects)
        if let spawned { start(spawned, at: now, into: &effects) }
    }

    /// The request job another job's end starts (a countdown's `on_expire`, a group's
    /// `on_complete`, a request's `on_success` or `on_failure`): owned by the same uid, in the same
    /// scope, as durable as its parent.
    mutating func spawnedJob(_ template: Delivery, of parent: Job, at now: ClockReading) -> Job {
        var delivery = template
        delivery.parent = parent.id
        delivery.nextAttempt = now.instant
        var job = newJob(owner: parent.owner, key: nil, scope: parent.scope, ephemeral: !parent.durable, work: .request(delivery), at: now)
        let id = job.id
        job.delivery?.request.addIdempotencyKey(id)
        return job
    }

    /// The body of an `on_success` or `on_failure` report: the job, how it ended, and its last answer.
    static func outcomeJSON(_ job: Job, state: JobState) -> JSONValue {
        var object: [String: JSONValue] = ["job": .string(job.id.rawValue), "state": .string(state.rawValue)]
        if let delivery = job.delivery {
            object["attempts"] = .number(Double(delivery.attempts))
            object["url"] = .string(delivery.request.url)
        }
        if let result = job.result {
            object["status"] = .number(Double(result.status))
            object["body"] = .string(result.body)
        }
        if let error = job.error { object["error"] = .string(error) }
        return .object(object)
    }

    /// `retry`: puts a dead (or failed) request job back in the queue with fresh attempts, same id.
    mutating func retry(
        _ request: RetryRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        guard var job = jobs[JobID(request.job)], peer.mayAccess(ownerUID: job.owner) else {
            return .failure(SchedulerError(.unknownJob, "no job '\(request.job)'"))
        }
        guard job.kind == .request, job.state == .dead || job.state == .failed else {
            return .failure(
                SchedulerError(.badField, "only a dead or failed request job can be retried; '\(request.job)' is a \(job.state.rawValue) \(job.kind.rawValue) job"))
        }
        do {
            try checkCapacity()
        } catch {
            return .failure(error)
        }
        adjustCount(owner: job.owner, kind: job.kind, state: job.state, by: -1)
        adjustCount(owner: job.owner, kind: job.kind, state: .active, by: 1)
        timers.remove(.job(job.id))
        job.state = .active
        job.endedAt = nil
        job.error = nil
        job.delivery?.attempts = 0
        job.delivery?.nextAttempt = now.instant
        jobs[job.id] = job
        if let scope = job.scope { activeByScope[scope, default: []].insert(job.id) }
        if let key = job.key, activeByKey[OwnedKey(owner: job.owner, key: key)] == nil {
            activeByKey[OwnedKey(owner: job.owner, key: key)] = job.id
        }
        effects.append(.deliver(makeEvent(.registered, job, at: now), to: recipients(of: job)))
        scheduleDelivery(job.id, at: now, startIfDue: true, into: &effects)
        let result = Result<ReplyBody, SchedulerError>.success(.job(JobResult(job: info(job, at: now))))
        guard job.durable else { return result }
        effects.append(.persist(.update(record(of: job, at: now))))
        let token = nextCommitToken()
        pendingCommits[token] = .reply(connection, requestID, result)
        effects.append(.commitBarrier(token))
        return nil
    }

    /// Starts a spawned job. A durable one is written in the same transaction as its parent's end,
    /// which the caller has just persisted, and sent once that commit is done: it exists exactly
    /// when the end does.
    mutating func start(_ spawned: Job, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if spawned.durable {
            stage(spawned, .spawn(spawned), at: now, into: &effects)
        } else {
            _ = activate(spawned, follower: nil, at: now, into: &effects)
        }
    }
}
