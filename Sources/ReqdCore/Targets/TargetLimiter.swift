import ReqdProtocol

/// Rate and concurrency per target (`TargetRules`), and the jobs waiting for a target to take
/// their next request.
///
/// The rate is a token bucket kept as one instant, GCRA-style: `theoretical` is when the bucket
/// would be empty again had every request so far taken its token at the steady rate, so a request
/// may go while `theoretical - now` is below `(burst - 1)` intervals. That holds every window of a
/// second to `rate + burst` requests, with integers only.
///
/// A request waiting here is not an attempt: its job's machine has not been asked to start it.
/// Waiting jobs are served in turn across owners: each owner has a line, and a target serves the
/// owners round robin, one request each, so one user's thousands of queued submits delay another
/// user's poll by at most one request per turn.
///
/// A `429` or `503` with `Retry-After` pauses the whole target (`pause(_:until:)`), and a target
/// with a circuit breaker (`CircuitBreaker`) takes nothing while it is open but its probe. When
/// the breaker closes, the jobs that waited for it go at the catch-up rate (`spread`), not at once.
struct TargetLimiter: Sendable {
    /// One target's live state.
    struct Target: Sendable {
        /// When the bucket is empty again at the steady rate; `.distantPast` when full.
        var theoretical = Instant.distantPast
        var inFlight = 0
        /// Until when a `Retry-After` paused the target.
        var pausedUntil: Instant?
        /// Owners with jobs waiting, in the order they are served next.
        var turns: [UInt32] = []
        var lines: [UInt32: ChunkedArray<JobID>] = [:]
        var waiting = 0
        /// Requests sent in each of the last 60 seconds, by second since the boot-time epoch.
        var sentBySecond: [(second: Int64, count: Int)] = []
        /// Whose jobs sent or waited here, and when they last did: a user sees a target in
        /// `status --targets` only while their own jobs use it.
        var users: [UInt32: Instant] = [:]
        var breaker = CircuitBreaker()
        /// Requests still to go one `spreadInterval` apart, from `spreadNext`: the jobs that waited
        /// while the breaker was open.
        var spreadLeft = 0
        var spreadNext = Instant.distantPast
        var spreadInterval: Int64 = 0

        /// Whether nothing about the target needs remembering.
        var isIdle: Bool {
            inFlight == 0 && waiting == 0 && pausedUntil == nil && theoretical == .distantPast && sentBySecond.isEmpty
                && breaker.isIdle && spreadLeft == 0
        }

        /// Forgets what is older than a minute: the counts by second, the users, and a bucket
        /// that has long been full again.
        mutating func age(at now: Instant) {
            let second = now.nanoseconds / 1_000_000_000
            sentBySecond.removeAll { $0.second <= second - 60 }
            let minuteAgo = now.advanced(by: -60_000_000_000)
            if users.values.contains(where: { $0 <= minuteAgo }) { users = users.filter { $0.value > minuteAgo } }
            if theoretical <= minuteAgo { theoretical = .distantPast }
            breaker.age(at: now)
            if spreadLeft > 0, waiting == 0 { spreadLeft = 0 }
        }
    }

    /// What a target says to `count` more requests now.
    enum Admission: Equatable {
        /// They may go; their tokens are taken.
        case go
        /// Not before this instant (a token, or the end of a pause).
        case waitUntil(Instant)
        /// Not before one of the target's requests in flight ends.
        case waitForSlot
        /// The circuit breaker is open: not before this instant, or, with none, not before the
        /// probe out now ends.
        case breakerOpen(Instant?)
    }

    /// Each mutation takes the target's state out of the table and puts it back, so its lines are
    /// uniquely referenced and grow in place.
    private(set) var targets: [String: Target] = [:]
    /// The target each waiting job waits for.
    private var waitingOn: [JobID: String] = [:]
    /// The target of each request on the wire that the limiter counts, and its breaker's
    /// generation when it went.
    private var onWire: [JobID: [(attempt: UInt32, target: String, generation: UInt32)]] = [:]
    /// Targets with jobs waiting that may now take some.
    private(set) var freed: Set<String> = []
    /// Past this many targets, the next send forgets the idle ones; it doubles with the targets
    /// still in use, so the sweep costs O(1) a send however many hosts are busy.
    private var sweepAbove = 4_096
    /// When each target with jobs waiting for time (a token, the end of a pause) is looked at again.
    private var wakes: [String: Instant] = [:]

    /// Whether nothing waits and nothing is counted.
    var isEmpty: Bool { targets.isEmpty }

    /// What `target` says to `count` more requests now under `limits`; nothing changes.
    func admission(_ target: String, count: Int, limits: TargetRules.Resolved, at now: Instant) -> Admission {
        let state = targets[target] ?? Target()
        if let until = state.pausedUntil, until > now { return .waitUntil(until) }
        if limits.breaker != nil {
            let breaker = state.breaker.admits(at: now)
            // Past the open time only the probe goes: one request.
            guard breaker.go, state.breaker.state == .closed || count == 1 else { return .breakerOpen(breaker.until) }
        }
        if state.spreadLeft > 0, state.spreadNext > now { return .waitUntil(state.spreadNext) }
        guard state.inFlight + count <= limits.concurrency else { return .waitForSlot }
        guard let rate = limits.rate else { return .go }
        let interval = rate.intervalNanos
        let tolerance = interval * Int64(max(1, limits.burst) - 1)
        // The last of the `count` tokens must fit in the bucket.
        let allowedAt = max(state.theoretical, now).advanced(by: interval * Int64(count - 1) - tolerance)
        return allowedAt <= now ? .go : .waitUntil(allowedAt)
    }

    /// Takes `count` tokens of `target`, which `admission` allowed; an ended pause is forgotten.
    mutating func take(_ target: String, count: Int, limits: TargetRules.Resolved, at now: Instant) {
        var state = targets.removeValue(forKey: target) ?? Target()
        defer { targets[target] = state.isIdle ? nil : state }
        if let until = state.pausedUntil, until <= now {
            state.pausedUntil = nil
        }
        if state.spreadLeft > 0 {
            state.spreadLeft = max(0, state.spreadLeft - count)
            state.spreadNext = max(state.spreadNext, now).advanced(by: state.spreadInterval * Int64(count))
        }
        guard let rate = limits.rate else { return }
        // A token taken late, by less than an interval (the timer's turn came a little after the
        // instant it was due), counts from when it was due: otherwise every wait would add the
        // turn's lateness to the interval, and a backlog would go slower than the rate.
        let interval = rate.intervalNanos
        let start = state.theoretical > now.advanced(by: -interval) ? state.theoretical : now
        state.theoretical = start.advanced(by: interval * Int64(count))
    }

    /// Jobs waiting for `target`.
    func waitingCount(_ target: String) -> Int { targets[target]?.waiting ?? 0 }

    /// The jobs waiting for `target`, owners' lines one after another.
    func waitingJobs(_ target: String) -> [JobID] {
        guard let state = targets[target] else { return [] }
        var jobs: [JobID] = []
        for owner in state.turns {
            guard let line = state.lines[owner] else { continue }
            for index in 0..<line.count where waitingOn[line[index]] == target { jobs.append(line[index]) }
        }
        return jobs
    }

    /// Whether `job` waits for a target.
    func isWaiting(_ job: JobID) -> Bool { waitingOn[job] != nil }

    /// Where `target`'s circuit breaker stands.
    func breakerState(_ target: String) -> BreakerState { targets[target]?.breaker.state ?? .closed }

    /// Until when `target`'s breaker is open.
    func breakerOpenUntil(_ target: String) -> Instant? { targets[target]?.breaker.openUntil }

    /// Tokens left in `target`'s bucket now (at most `burst`); nil without a rate.
    func tokens(_ target: String, limits: TargetRules.Resolved, at now: Instant) -> Int? {
        guard let rate = limits.rate else { return nil }
        let theoretical = targets[target]?.theoretical ?? .distantPast
        guard theoretical > now else { return limits.burst }
        let owed = (theoretical.nanoseconds(since: now) + rate.intervalNanos - 1) / rate.intervalNanos
        return max(0, limits.burst - Int(owed))
    }

    /// Puts `job` of `owner` in line for `target`; a job waits for one target at a time.
    mutating func wait(_ job: JobID, owner: UInt32, for target: String) {
        if let old = waitingOn[job] {
            guard old != target else { return }
            remove(job, from: old)
        }
        waitingOn[job] = target
        var state = targets.removeValue(forKey: target) ?? Target()
        if state.lines[owner] == nil {
            state.lines[owner] = ChunkedArray()
            state.turns.append(owner)
        }
        state.lines[owner]?.append(job)
        state.waiting += 1
        targets[target] = state
    }

    /// Takes the next job in line for `target`, owners in turn; nil when none waits.
    mutating func nextWaiting(_ target: String) -> JobID? {
        guard var state = targets.removeValue(forKey: target) else { return nil }
        defer { targets[target] = state.isIdle ? nil : state }
        while !state.turns.isEmpty {
            let owner = state.turns.removeFirst()
            guard let job = state.lines[owner]?.popFirst() else {
                state.lines[owner] = nil
                continue
            }
            if state.lines[owner]?.count == 0 { state.lines[owner] = nil } else { state.turns.append(owner) }
            // A job that stopped waiting (`remove`) is skipped here; its count went then.
            if waitingOn[job] == target {
                waitingOn[job] = nil
                state.waiting -= 1
                return job
            }
        }
        return nil
    }

    /// A request to `target` went on the wire; with a breaker (`breaker`), past its open time it
    /// is the probe, and the change is returned.
    mutating func sent(
        _ job: JobID, attempt: UInt32, owner: UInt32, to target: String, breaker: Bool, at now: Instant
    ) -> CircuitBreaker.Transition? {
        if targets.count > sweepAbove {
            forgetIdle(at: now)
            sweepAbove = max(4_096, targets.count * 2)
        }
        var state = targets.removeValue(forKey: target) ?? Target()
        state.inFlight += 1
        state.users[owner] = now
        let second = now.nanoseconds / 1_000_000_000
        state.age(at: now)
        if let last = state.sentBySecond.indices.last, state.sentBySecond[last].second == second {
            state.sentBySecond[last].count += 1
        } else {
            state.sentBySecond.append((second, 1))
        }
        let transition = breaker ? state.breaker.sent(job, attempt: attempt, at: now) : nil
        onWire[job, default: []].append((attempt, target, state.breaker.generation))
        targets[target] = state
        return transition
    }

    /// A request left the wire: returns its target and its breaker's generation when it went, nil
    /// for one the limiter did not count.
    @discardableResult
    mutating func ended(_ job: JobID, attempt: UInt32) -> (target: String, generation: UInt32)? {
        guard var requests = onWire[job], let index = requests.firstIndex(where: { $0.attempt == attempt }) else { return nil }
        let request = requests.remove(at: index)
        onWire[job] = requests.isEmpty ? nil : requests
        release(request.target)
        return (request.target, request.generation)
    }

    /// Counts the end of a request to `target` in its breaker; returns the change of state. When
    /// the breaker closes, the jobs waiting go `interval` apart; when a probe ends unjudged, the
    /// next waiting job probes.
    mutating func breakerEnded(
        _ target: String, job: JobID, attempt: UInt32, sentIn generation: UInt32, _ verdict: CircuitBreaker.Verdict,
        settings: BreakerSettings, spreadInterval interval: Int64, at now: Instant
    ) -> CircuitBreaker.Transition? {
        guard var state = targets.removeValue(forKey: target) else { return nil }
        let transition = state.breaker.ended(job, attempt: attempt, sentIn: generation, verdict, settings: settings, at: now)
        if transition == .closed, state.waiting > 0, interval > 0 {
            state.spreadLeft = state.waiting
            state.spreadNext = now
            state.spreadInterval = interval
        }
        if state.waiting > 0, state.breaker.state != .open { freed.insert(target) }
        targets[target] = state.isIdle ? nil : state
        return transition
    }

    /// Forgets the breaker of `target`: no table gives it one any more.
    mutating func dropBreaker(_ target: String) {
        guard var state = targets.removeValue(forKey: target) else { return }
        state.breaker = CircuitBreaker()
        state.spreadLeft = 0
        if state.waiting > 0 { freed.insert(target) }
        targets[target] = state.isIdle ? nil : state
    }

    /// A job ended: its requests leave the wire with it, and it waits no more.
    mutating func jobEnded(_ job: JobID) {
        for request in onWire.removeValue(forKey: job) ?? [] {
            // A probe that ends with its job lets the next request probe.
            targets[request.target]?.breaker.forget(job)
            release(request.target)
        }
        if let target = waitingOn.removeValue(forKey: job) { remove(job, from: target) }
    }

    /// Drops the targets with nothing left to remember once the last minute is forgotten.
    mutating func forgetIdle(at now: Instant) {
        for (target, var state) in targets {
            state.age(at: now)
            targets[target] = state.isIdle ? nil : state
        }
    }

    /// Pauses `target` until `until`, unless it is paused longer already.
    mutating func pause(_ target: String, until: Instant) {
        var state = targets.removeValue(forKey: target) ?? Target()
        state.pausedUntil = max(state.pausedUntil ?? until, until)
        targets[target] = state
    }

    /// Marks `target` as able to take waiting jobs again (its token or pause is due).
    mutating func markFreed(_ target: String) {
        if targets[target]?.waiting ?? 0 > 0 { freed.insert(target) }
    }

    /// Looks at `target` again at `instant`, or sooner if asked to already; returns the earliest
    /// instant any target is to be looked at, for the scheduler's timer.
    mutating func wake(_ target: String, at instant: Instant) -> Instant {
        wakes[target] = min(wakes[target] ?? instant, instant)
        return wakes.values.min() ?? instant
    }

    /// Marks the targets whose wake-up is due as freed; returns the next wake-up, if any.
    mutating func wakeDue(at now: Instant) -> Instant? {
        for (target, instant) in wakes where instant <= now {
            wakes[target] = nil
            if var state = targets[target], let until = state.pausedUntil, until <= now {
                state.pausedUntil = nil
                targets[target] = state.isIdle ? nil : state
            }
            markFreed(target)
        }
        return wakes.values.min()
    }

    /// The rules changed: every bucket starts full under the new rate, so a rate raised by a reload
    /// applies to the jobs already waiting (the reload marks every target with jobs waiting), a
    /// target `rules` gives no breaker any more forgets the one it had, and an open breaker's open
    /// time follows the new `breaker_open_for` (its waiting jobs, marked, plan the wake-up again).
    mutating func rulesChanged(_ rules: TargetRules) {
        for target in Array(targets.keys) {
            targets[target]?.theoretical = .distantPast
            guard targets[target]?.breaker.isIdle == false else { continue }
            if let settings = rules.limits(for: target).breaker {
                targets[target]?.breaker.openForChanged(settings)
            } else {
                dropBreaker(target)
            }
        }
    }

    /// Marks every target with jobs waiting (the rules changed).
    mutating func markAllFreed() {
        for (target, state) in targets where state.waiting > 0 { freed.insert(target) }
    }

    /// Clears the targets left to look at.
    mutating func takeFreed() -> Set<String> {
        defer { freed = [] }
        return freed
    }

    private mutating func release(_ target: String) {
        guard var state = targets.removeValue(forKey: target) else { return }
        state.inFlight = max(0, state.inFlight - 1)
        if state.waiting > 0 { freed.insert(target) }
        targets[target] = state.isIdle ? nil : state
    }

    private mutating func remove(_ job: JobID, from target: String) {
        // Left in its owner's line and skipped when its turn comes (`nextWaiting`); only the count goes now.
        guard var state = targets.removeValue(forKey: target) else { return }
        state.waiting -= 1
        if state.waiting == 0 {
            state.lines = [:]
            state.turns = []
        }
        targets[target] = state.isIdle ? nil : state
    }
}
