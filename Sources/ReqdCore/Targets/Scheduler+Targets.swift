import ReqdProtocol

/// Target limits (`TargetRules`, `TargetLimiter`): a job about to send waits while its target has
/// no token, no free request slot, or a `Retry-After` pause, and starts when it has.
///
/// Every target is counted, configured or not: its concurrency is `http.max_connections_per_host`
/// unless a table says otherwise, so requests beyond it wait here, in turn across users, rather
/// than in the HTTP client's queue in the order they came. (Measured: 50,000 submits drive the same
/// rate either way, `bench/targets`.)
extension Scheduler {
    /// Whether job `id`, about to send, must wait for its target; if so it is put in line there
    /// and only its time limits stay on the timer. When it may go, its tokens are taken.
    mutating func waitsForTarget(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) -> Bool {
        targetStartLimit(id, at: now, into: &effects) == 0
    }

    /// How many of the requests job `id` would send now its targets let go: nil for all of them,
    /// 0 when the job waits in line (only its time limits stay on the timer). The tokens of those
    /// that may go are taken. A group whose members are more than its targets let go starts the
    /// first ones and waits in line for the rest. A job that starts to wait while the target's
    /// circuit breaker is open is `held`, with reason `breaker_open`.
    mutating func targetStartLimit(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) -> Int? {
        guard let header = table[id], header.isActive else { return nil }
        let owner = header.owner
        let urls = urlsToSend(id, at: now)
        guard !urls.isEmpty else { return nil }
        let rules = configuration.targets
        var counts: [String: (count: Int, limits: TargetRules.Resolved)] = [:]
        var admitted = 0
        for url in urls {
            let target = RequestURL.target(url)
            let limits = counts[target]?.limits ?? rules.limits(for: target)
            let count = (counts[target]?.count ?? 0) + 1
            // Others in line go first: a job that comes to send by another path (its own answer,
            // its timer, its registration) joins the line rather than take the slot or token they
            // wait for, so the turns across users hold.
            let queued = servingFromLine?.job != id && limiter.waitingCount(target) > 0
            let admission: TargetLimiter.Admission =
                queued ? .waitForSlot : limiter.admission(target, count: count, limits: limits, at: now.instant)
            if queued { limiter.markFreed(target) }
            if admission == .go {
                counts[target] = (count, limits)
                admitted += 1
                continue
            }
            let wasWaiting = limiter.isWaiting(id)
            limiter.wait(id, owner: owner, for: target)
            switch admission {
            case .go, .waitForSlot, .breakerOpen(nil):
                break
            case .waitUntil(let instant), .breakerOpen(let instant?):
                timers.set(.targets, priority: limiter.wake(target, at: instant))
            }
            // A job served from this target's line that must wait again was told it is held already.
            let servedHere = servingFromLine.map { $0.job == id && $0.target == target } ?? false
            if !wasWaiting, !servedHere, limits.breaker != nil, limiter.breakerState(target) != .closed {
                holdForBreaker([id], of: target, at: now, into: &effects)
            }
            break
        }
        for (target, taken) in counts {
            limiter.take(target, count: taken.count, limits: taken.limits, at: now.instant)
        }
        if admitted == 0 { keepOnlyWhatRunsWhileWaiting(id, at: now) }
        return admitted == urls.count ? nil : admitted
    }

    /// A request goes on the wire: counted against its target, told whether to ask for a
    /// compressed answer, how to sign itself and whom to trust. Past an open breaker's time it is the probe.
    mutating func targetSent(_ send: inout HTTPSend, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let target = RequestURL.target(send.request.url)
        let limits = configuration.targets.limits(for: target)
        send.acceptCompressed = limits.decompress
        send.tls = limits.tls
        send.pace = limits.rate.map { WirePace(target: target, intervalNanos: $0.intervalNanos, burst: limits.burst) }
        if let secrets = limits.signing {
            // A group member is a message of its own, and so is each poll of a poll job; a request
            // job's retries are the same message.
            let id = send.member.map { "\(send.job)-\($0)" } ?? (send.job.kind == .poll ? "\(send.job)-\(send.attempt)" : send.job.rawValue)
            send.signing = WebhookSigning(id: id, secrets: secrets)
        }
        guard let owner = table[send.job]?.owner else { return }
        let transition = limiter.sent(send.job, attempt: send.attempt, owner: owner, to: target, breaker: limits.breaker != nil, at: now.instant)
        if let transition, let settings = limits.breaker { breakerChanged(target, transition, settings: settings, at: now, into: &effects) }
    }

    /// A request the limiter counted left the wire: its slot frees, and its target's breaker, if
    /// any, counts how it ended.
    mutating func targetRequestEnded(
        _ id: JobID, attempt: UInt32, _ verdict: CircuitBreaker.Verdict, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard !limiter.isEmpty, let (target, generation) = limiter.ended(id, attempt: attempt), configuration.targets.hasBreakers,
            let settings = configuration.targets.limits(for: target).breaker
        else { return }
        if let transition = limiter.breakerEnded(
            target, job: id, attempt: attempt, sentIn: generation, verdict, settings: settings,
            spreadInterval: configuration.catchupIntervalNanos, at: now.instant)
        {
            breakerChanged(target, transition, settings: settings, at: now, into: &effects)
        }
    }

    /// Logs and counts a change of `target`'s breaker. When it opens, the jobs already waiting for
    /// the target are held, and the line is looked at again when the open time ends.
    private mutating func breakerChanged(
        _ target: String, _ transition: CircuitBreaker.Transition, settings: BreakerSettings, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) {
        let openFor = DurationText.format(nanoseconds: settings.openForNanos)
        let message: String
        switch transition {
        case .opened(let failures, let requests):
            let window = DurationText.format(nanoseconds: settings.windowNanos)
            message = "\(failures) of \(requests) requests in the last \(window) failed (breaker_failure_ratio \(settings.failureRatio)); "
                + "nothing is sent to it for \(openFor)"
            holdForBreaker(limiter.waitingJobs(target), of: target, at: now, into: &effects)
        case .probing:
            message = "one probe request goes"
        case .closed:
            let waiting = limiter.waitingCount(target)
            let over = DurationText.format(nanoseconds: Int64(waiting) * configuration.catchupIntervalNanos)
            message = "the probe succeeded; \(waiting) waiting jobs resume over \(over)"
        case .reopened(let why):
            message = "the probe failed (\(why)); nothing is sent to it for \(openFor)"
        }
        if transition.state == .open, limiter.waitingCount(target) > 0, let until = limiter.breakerOpenUntil(target) {
            timers.set(.targets, priority: limiter.wake(target, at: until))
        }
        effects.append(.breakerChanged(target: target, transition.state, message))
    }

    /// Tells the watchers of `jobs`, waiting for `target`, that they are held by its open breaker.
    private mutating func holdForBreaker(_ jobs: [JobID], of target: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let note = JobNote(.held, error: "the circuit breaker of \(target) is open", reason: .breakerOpen)
        for id in jobs where table[id]?.isActive == true {
            perform(JobAction(notes: [note]), for: id, at: now, into: &effects)
        }
    }

    /// A `429` or `503` answer with `Retry-After` pauses its whole target for that long.
    mutating func pauseTargetIfAsked(_ answer: HTTPAnswer, url: String?, at now: ClockReading) {
        guard let url, let wait = answer.retryAfterNanos(at: now, cap: configuration.maxRetryAfterNanos), wait > 0 else { return }
        let target = RequestURL.target(url)
        let until = now.instant.advanced(by: wait)
        limiter.pause(target, until: until)
        timers.set(.targets, priority: limiter.wake(target, at: until))
    }

    /// The URL request `attempt` of job `id` went to (for a group, the member's that sent it).
    func requestURL(of id: JobID, attempt: UInt32) -> String? {
        switch id.kind {
        case .request?: table.deliveries[id]?.machine.request.url
        case .poll?: table.polls[id]?.machine.request.url
        case .group?: table.groups[id].flatMap { slot in slot.machine.wires[attempt].map { slot.machine.members[$0].delivery.request.url } }
        case .countdown?, .schedule?, nil: nil
        }
    }

    /// The targets' timer entry came due: targets whose token or pause end is due take jobs again.
    mutating func targetTimerFired(at now: ClockReading) {
        if let next = limiter.wakeDue(at: now.instant) { timers.set(.targets, priority: next) }
    }

    /// Starts jobs waiting for targets that may take them now, owners in turn, until each target
    /// says wait again.
    mutating func startTargetWaiters(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        var rounds = 0
        while !limiter.freed.isEmpty, rounds < 64 {
            rounds += 1
            for target in limiter.takeFreed().sorted() {
                let limits = configuration.targets.limits(for: target)
                // Each job in line at most once a round: a group that needs more than one token
                // goes back in line, behind the others.
                var turns = limiter.waitingCount(target)
                waiters: while turns > 0 {
                    turns -= 1
                    switch limiter.admission(target, count: 1, limits: limits, at: now.instant) {
                    case .go:
                        guard let id = limiter.nextWaiting(target) else { break waiters }
                        guard table[id]?.isActive == true else { continue }
                        servingFromLine = (id, target)
                        advance(id, at: now, into: &effects)
                        servingFromLine = nil
                    case .waitForSlot, .breakerOpen(nil):
                        break waiters
                    case .waitUntil(let instant), .breakerOpen(let instant?):
                        timers.set(.targets, priority: limiter.wake(target, at: instant))
                        break waiters
                    }
                }
            }
        }
    }

    /// `status --targets`: each target's limits and live state that `peer` may see (root: all,
    /// and each configured table no target in use matched, with its policy and an idle state;
    /// others: the targets their own jobs used in the last minute or wait for).
    func targetInfos(for peer: Peer, at now: ClockReading) -> [TargetLimitInfo] {
        var infos = liveTargetInfos(for: peer, at: now)
        guard peer.uid == 0 else { return infos }
        let shown = Set(infos.map(\.table))
        for name in configuration.targets.tables.keys.sorted() where !shown.contains(name) {
            let limits = configuration.targets.limits(for: name)
            infos.append(
                TargetLimitInfo(
                    target: name, table: name, rate: limits.rate?.description, burst: limits.burst, concurrency: limits.concurrency,
                    tokens: limits.rate == nil ? nil : limits.burst, inFlight: 0, waiting: 0, pausedUntil: nil, requestsLastMinute: 0,
                    lastError: nil, breaker: limits.breaker.map { breakerInfo(CircuitBreaker(), $0, at: now) }))
        }
        return infos
    }

    /// The targets with live state that `peer` may see.
    private func liveTargetInfos(for peer: Peer, at now: ClockReading) -> [TargetLimitInfo] {
        let rules = configuration.targets
        var errors: [String: String] = [:]
        // Most failures first: a target reached by several origins (http and https) shows the worst.
        for failing in targetHealth.failing(visibleTo: peer, at: now.instant) {
            let target = RequestURL.target(failing.origin + "/")
            if errors[target] == nil { errors[target] = failing.entry.error }
        }
        return limiter.targets.keys.sorted().compactMap { target -> TargetLimitInfo? in
            guard var state = limiter.targets[target] else { return nil }
            state.age(at: now.instant)
            guard !state.isIdle, peer.uid == 0 || state.users[peer.uid] != nil || state.lines[peer.uid] != nil else { return nil }
            let limits = rules.limits(for: target)
            return TargetLimitInfo(
                target: target, table: limits.table, rate: limits.rate?.description, burst: limits.burst,
                concurrency: limits.concurrency, tokens: limiter.tokens(target, limits: limits, at: now.instant),
                inFlight: state.inFlight, waiting: state.waiting,
                pausedUntil: state.pausedUntil.flatMap { $0 > now.instant ? now.wall(at: $0) : nil },
                requestsLastMinute: state.sentBySecond.reduce(0) { $0 + $1.count }, lastError: errors[target],
                breaker: limits.breaker.map { breakerInfo(state.breaker, $0, at: now) })
        }
    }

    private func breakerInfo(_ breaker: CircuitBreaker, _ settings: BreakerSettings, at now: ClockReading) -> TargetBreakerInfo {
        let figures = breaker.figures(settings, at: now.instant)
        return TargetBreakerInfo(
            state: breaker.state(at: now.instant), since: breaker.since.map { now.wall(at: $0) },
            openUntil: breaker.openUntil.flatMap { $0 > now.instant ? now.wall(at: $0) : nil },
            requests: figures.requests, failures: figures.failures, failureRatio: settings.failureRatio,
            minRequests: settings.minRequests, windowMs: settings.windowNanos / 1_000_000, openForMs: settings.openForNanos / 1_000_000)
    }
}
