import ReqdProtocol

/// Routing events to each kind's state machine, and turning what the machines ask for into effects.
///
/// Every machine is changed in place in its kind's table (`table.polls[id]?.machine.timerFired(…)`):
/// the dictionary yields the slot to the mutation, so an answer never copies a group's members.
/// A `Job` snapshot (`job(_:)`) shares those arrays; take one only where nothing mutates the
/// machine while it lives.
extension Scheduler {
    /// Lets a job's machine start what is due, and plans its next need for the timer.
    ///
    /// One lookup finds the job: its header and its machine share their slot.
    mutating func advance(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if id.kind != .countdown, waitsForRequestSlot(id, at: now) { return }
        let action: JobAction?
        switch id.kind {
        case .countdown?:
            guard let slot = table.countdowns[id], slot.header.isActive else { return }
            action = slot.machine.advance(at: now.instant, watched: subscriptions.isWatched(slot.header))
        case .poll?:
            if paceOverduePoll(id, at: now.instant) || waitsForTarget(id, at: now, into: &effects) { return }
            let configuration = configuration
            action = table.polls[id]?.ifActive { $0.advance(id, at: now.instant, configuration: configuration) }
        case .request?:
            let holdReason = network.isEmpty ? nil : table.deliveries[id].flatMap { network.holdReason($0.machine.origin, except: id) }
            if holdReason == nil, paceOverdueRequest(id, at: now.instant) || waitsForTarget(id, at: now, into: &effects) { return }
            let timeout = configuration.requestTimeoutNanos
            action = table.deliveries[id]?.ifActive { $0.advance(id, at: now.instant, holdReason: holdReason, timeout: timeout) }
        case .group?:
            let limit = targetStartLimit(id, at: now, into: &effects)
            if limit == 0 { return }
            let timeout = configuration.requestTimeoutNanos
            action = table.groups[id]?.ifActive { $0.advance(id, at: now.instant, timeout: timeout, startLimit: limit ?? .max) }
        case .schedule?:
            action = table.schedules[id]?.ifActive { $0.advance(at: now) }
        case nil:
            return
        }
        if let action { perform(action, for: id, at: now, into: &effects) }
    }

    /// A job's entry in the timer heap came due.
    mutating func jobTimerFired(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let header = table[id] else { return }
        if header.state == .dead {
            // A dead letter's retention ended.
            forgetRetained(id, at: now, into: &effects)
            return
        }
        guard header.isActive else { return }
        let action: JobAction?
        switch header.kind {
        case .countdown:
            let watched = subscriptions.isWatched(header)
            action = table.countdowns[id]?.machine.timerFired(at: now, watched: watched)
        case .poll:
            action = table.polls[id]?.machine.timerFired(at: now, configuration: configuration)
        case .request:
            action = table.deliveries[id]?.machine.timerFired(at: now, random: &random, configuration: configuration)
        case .group:
            action = table.groups[id]?.machine.timerFired(at: now, random: &random, configuration: configuration)
        case .schedule:
            scheduleFired(id, at: now, into: &effects)
            return
        }
        guard let action else { return }
        startingOnTimer = true
        defer { startingOnTimer = false }
        perform(action, for: id, at: now, into: &effects)
        advance(id, at: now, into: &effects)
    }

    /// A request the scheduler asked for ended; a stale or unknown one changes nothing.
    mutating func httpFinished(
        _ id: JobID, attempt: UInt32, _ outcome: HTTPOutcome, address: String? = nil, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) {
        ledger.ended(id, attempt: attempt)
        targetRequestEnded(id, attempt: attempt, CircuitBreaker.Verdict(outcome), at: now, into: &effects)
        guard let header = table[id] else { return }
        // Drawn before anything else, even for a group that has ended, so ids and jitter repeat
        // from the seed whatever the answers were.
        let jitter = header.kind == .group ? random.unit() : 0
        guard header.isActive else { return }
        recordTargetHealth(outcome, of: id, kind: header.kind, attempt: attempt, owner: header.owner, at: now.instant)
        if case .response(let answer) = outcome, answer.status == 429 || answer.status == 503 {
            pauseTargetIfAsked(answer, url: requestURL(of: id, attempt: attempt), at: now)
        }
        let action: JobAction?
        switch header.kind {
        case .countdown, .schedule:
            action = nil
        case .poll:
            action = table.polls[id]?.machine.httpFinished(
                attempt: attempt, outcome, address: address, at: now, configuration: configuration)
        case .request:
            action = table.deliveries[id]?.machine.httpFinished(
                attempt: attempt, outcome, address: address, at: now, random: &random, configuration: configuration)
        case .group:
            action = table.groups[id]?.machine.httpFinished(request: attempt, outcome, at: now, jitter: jitter, configuration: configuration)
        }
        guard let action else { return }
        perform(action, for: id, at: now, into: &effects)
        advance(id, at: now, into: &effects)
    }

    /// The executor learned where an attempt aborted at its request timeout had gone, after the
    /// attempt was logged without an address: the log entry gets it, in the store or in memory.
    mutating func attemptAddressed(_ id: JobID, attempt: UInt32, address: String, into effects: inout [SchedulerEffect]) {
        guard let header = table[id] else { return }
        if storeHoldsAttempts(durable: header.durable, kind: header.kind, active: header.isActive) {
            effects.append(.persist(.attemptAddress(id.rawValue, number: Int(attempt), address: address)))
        } else if table.withAttemptLog(id, { $0.setAddress(address, ofAttempt: Int(attempt)) }) == true, header.durable {
            // A running durable poll wrote that attempt already (`poll.attempts_write_interval`).
            effects.append(.persist(.attemptAddress(id.rawValue, number: Int(attempt), address: address)))
        }
    }

    /// Whether a job's attempt log is the store's rather than memory's: a durable request job's
    /// always, a durable poll's once it has ended or the daemon is stopping (`AttemptLog`).
    func storeHoldsAttempts(durable: Bool, kind: JobKind, active: Bool) -> Bool {
        durable && (kind == .request || (kind == .poll && (!active || shuttingDown)))
    }

    /// Writes the attempts a durable poll holds that the store does not have; with `releasing`
    /// (the poll ended) its log leaves memory, since the store now has all of it.
    mutating func persistPollAttempts(_ id: JobID, releasing: Bool, into effects: inout [SchedulerEffect]) {
        guard id.kind == .poll, let unwritten = table.withAttemptLog(id, { $0.takeUnwritten() }) else { return }
        for attempt in unwritten { effects.append(.persist(.attempt(id.rawValue, attempt))) }
        if releasing { table.withAttemptLog(id) { $0 = AttemptLog() } }
    }

    /// At shutdown: every active durable poll's attempts that the store does not have yet.
    mutating func persistAllPollAttempts(into effects: inout [SchedulerEffect]) {
        var pending: [JobID] = []
        for (id, slot) in table.polls where slot.header.durable && slot.header.isActive && slot.machine.log.unwritten > 0 {
            pending.append(id)
        }
        for id in pending { persistPollAttempts(id, releasing: false, into: &effects) }
    }

    /// Carries out what a job's machine asked for: the one place a `JobAction` becomes effects.
    ///
    /// Order matters and is fixed: requests on the wire, the timer entry, the header's latest
    /// answer, the network hold, the watchers' events, the store, and last the end of the job.
    mutating func perform(_ action: JobAction, for id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        for operation in action.wire {
            switch operation {
            case .send(var send):
                if let owner = table[id]?.owner { ledger.sent(id, attempt: send.attempt, owner: owner) }
                targetSent(&send, at: now, into: &effects)
                effects.append(.send(send))
            case .abort(let attempt):
                ledger.ended(id, attempt: attempt)
                // The only aborts that judge the target are those of requests left unanswered.
                let verdict: CircuitBreaker.Verdict = action.timedOut.isEmpty ? .none : .failure("no answer within the request timeout")
                targetRequestEnded(id, attempt: attempt, verdict, at: now, into: &effects)
                effects.append(.abort(id, attempt: attempt))
            }
        }
        switch action.deadline {
        case .keep: break
        case .set(let instant): timers.set(.job(id), priority: instant)
        case .clear: timers.remove(.job(id))
        }
        if let result = action.result {
            table.update(id, result: result, error: nil)
        } else if action.attempt != nil, id.kind == .request {
            // A request job's `result` is its last attempt's answer: none, when that had none.
            table.clearResult(id)
        }
        switch action.network {
        case .unreachable(let why): holdTarget(of: id, why: why, at: now, into: &effects)
        case .reachable: targetReachable(of: id, at: now, into: &effects)
        case nil: break
        }
        for message in action.debug {
            effects.append(.debug(id, message))
        }
        if !action.timedOut.isEmpty || action.unreportedRetries > 0, let header = table[id] {
            for origin in action.timedOut {
                targetHealth.record(.failure("no answer within the request timeout"), origin: origin, owner: header.owner, at: now.instant)
                effects.append(.requestTimedOut(afterNanos: configuration.requestTimeoutNanos))
            }
            for _ in 0..<action.unreportedRetries { effects.append(.counted(.retrying, header.kind)) }
        }
        if !action.notes.isEmpty, let header = table[id] {
            let recipients = subscriptions.recipients(of: header)
            if !recipients.isEmpty {
                for note in action.notes {
                    guard var event = event(note.type, of: id, at: now) else { continue }
                    note.fill(&event)
                    effects.append(.deliver(event, to: recipients))
                }
            } else {
                // Nobody watches: no event is built, but the daemon's counters still hear of it.
                for note in action.notes where note.type == .retrying || note.type == .held {
                    effects.append(.counted(note.type, header.kind))
                }
            }
        }
        if let attempt = action.attempt {
            if let header = table[id], storeHoldsAttempts(durable: header.durable, kind: header.kind, active: header.isActive) {
                effects.append(.persist(.attempt(id.rawValue, attempt)))
            } else {
                table.withAttemptLog(id) { $0.append(attempt) }
            }
        }
        if !action.persist.isEmpty, table[id]?.durable == true {
            for persist in action.persist {
                switch persist {
                case .progress:
                    if let job = job(id) { persistProgress(of: job, at: now, into: &effects) }
                case .pollCounters:
                    guard let poll = table.polls[id]?.machine else { break }
                    effects.append(.persist(.pollCounters(id.rawValue, PollCounters(poll, at: now))))
                    // Judged at the next poll's start: what is unwritten now stays so until then.
                    let next = now.wall(at: max(poll.nextStart, now.instant))
                    if poll.log.hasUnwritten(olderThan: configuration.pollAttemptsWriteNanos, at: next) {
                        persistPollAttempts(id, releasing: false, into: &effects)
                    }
                case .member(let index):
                    if let member = table.groups[id]?.machine.members[index] {
                        effects.append(.persist(.groupMember(id.rawValue, index: index, MemberRecord(member))))
                    }
                }
            }
        }
        if let end = action.end { ended(id, end, at: now, into: &effects) }
    }

    /// A whole job as one value, assembled from its header and its machine; see `Job`.
    public func job(_ id: JobID) -> Job? { table.job(id) }

    /// An event of a job, with who the job is and its kind's counters filled in.
    func event(_ type: JobEventType, of id: JobID, at now: ClockReading) -> JobEvent? {
        job(id).map { JobEvent(type, of: $0, at: now) }
    }
}
