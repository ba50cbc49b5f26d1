import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

extension [SchedulerEffect] {
    /// The breaker changes among the effects: the state each went to, and its message.
    var breakerChanges: [(state: BreakerState, message: String)] {
        compactMap { if case .breakerChanged(_, let state, let message) = $0 { (state, message) } else { nil } }
    }
}

@Suite("Circuit breaker per target on the injected clock: opens on the ratio, holds jobs, one probe, closes or opens again")
struct CircuitBreakerTests {
    /// A breaker on api.example that opens when half of at least 4 requests in 10 s fail, open 30 s.
    private static func breaking(catchupRate: Int = 50, _ more: (inout TargetLimits) -> Void = { _ in }) throws -> Harness {
        var configuration = SchedulerConfiguration()
        configuration.catchupRate = catchupRate
        try configuration.targets.update("api.example") {
            $0.breakerFailureRatio = 0.5
            $0.breakerMinRequests = 4
            $0.breakerWindowNanos = 10 * second
            $0.breakerOpenForNanos = 30 * second
            more(&$0)
        }
        return Harness(configuration: configuration)
    }

    private static func order(_ url: String = "https://api.example/orders", attempts: Int = 5) -> SubmitSpec {
        SubmitSpec(
            request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: attempts, backoffMinMs: 1_000, backoffMaxMs: 1_000),
            dedupeWindowMs: 0, follow: true)
    }

    /// Sends four requests and answers them 200, 200, 500, 500: the fourth end opens the breaker.
    private static func open(_ h: inout Harness) throws -> [SchedulerEffect] {
        let sends = (0..<4).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        try #require(sends.count == 4)
        var effects: [SchedulerEffect] = []
        for (send, status) in zip(sends, [200, 200, 500, 500]) {
            effects = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status))))
            if status == 500, send.job != sends[3].job { #expect(effects.breakerChanges.isEmpty, "3 of 4 ends are below min_requests") }
        }
        return effects
    }

    @Test("it opens when the failed share of at least min_requests reaches the ratio, with a notice that names the figures")
    func opensOnRatio() throws {
        var h = try Self.breaking()
        let effects = try Self.open(&h)
        let change = try #require(effects.breakerChanges.first)
        #expect(change.state == .open)
        #expect(change.message.contains("2 of 4 requests in the last 10s failed") && change.message.contains("30s"), "\(change.message)")
    }

    @Test("4xx and 429 answers are not failures; 5xx, no answer and a timeout are")
    func whatFails() throws {
        var h = try Self.breaking { $0.breakerFailureRatio = 1; $0.breakerMinRequests = 3; $0.breakerWindowNanos = 60 * second }
        var sends = (0..<3).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        for (send, status) in zip(sends, [404, 429, 400]) {
            #expect(h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status)))).breakerChanges.isEmpty)
        }
        // A fresh window: the three successes leave it after 60 s.
        h.advance(61 * second)
        sends = (0..<3).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        _ = h.handle(.httpFinished(sends[0].job, attempt: sends[0].attempt, .response(HTTPAnswer(status: 502))))
        _ = h.handle(.httpFinished(sends[1].job, attempt: sends[1].attempt, .failure("connection refused")))
        // The third is left unanswered until the request timeout aborts it.
        var opened: [BreakerState] = []
        while opened.isEmpty, h.armed != nil {
            opened = h.fireAtArmedDeadline().breakerChanges.map(\.state)
        }
        #expect(opened == [.open])
    }

    @Test("while open nothing is sent: new jobs are held (reason breaker_open) and spend no attempt; after open_for one probe goes")
    func holdsThenProbes() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let opened = h.now.instant
        var waiting: [String] = []
        for _ in 0..<5 {
            let (reply, effects) = h.submitted(Self.order())
            #expect(effects.sends.isEmpty)
            let held = try #require(effects.events(.held).first)
            #expect(held.reason == .breakerOpen && held.error?.contains("api.example:443") == true)
            waiting.append(reply.job.id)
        }
        #expect(h.submitted(Self.order("https://other.example/x")).effects.sends.count == 1, "another target is not held")
        var probes: [HTTPSend] = []
        var changes: [BreakerState] = []
        while probes.isEmpty, h.armed != nil {
            let effects = h.fireAtArmedDeadline()
            probes = effects.sends
            changes += effects.breakerChanges.map(\.state)
        }
        #expect(h.now.instant.nanoseconds(since: opened) == 30 * second)
        #expect(probes.count == 1 && changes == [.halfOpen])
        for id in waiting where id != probes[0].job.rawValue {
            #expect(h.scheduler.job(JobID(id))?.delivery?.attempts == 0, "a held job spends no attempt")
        }
        guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true))).replies.first?.result else {
            throw TestFailure("no summary")
        }
        let breaker = try #require(summary.targets?.first { $0.target == "api.example:443" }?.breaker)
        #expect(breaker.state == .halfOpen && breaker.failureRatio == 0.5 && breaker.minRequests == 4)
    }

    @Test("the probe's success closes it and the held jobs resume at the catch-up rate, 20 ms apart at 50/s")
    func probeClosesAndSpreads() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        for _ in 0..<5 { _ = h.submitted(Self.order()) }
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        let answered = h.answer(try #require(probe), status: 200, json: nil)
        #expect(answered.breakerChanges.map(\.state) == [.closed])
        #expect(answered.breakerChanges.first?.message.contains("4 waiting jobs resume over 80ms") == true, "\(answered.breakerChanges)")
        var times = answered.sends.map { _ in h.now.instant }
        var pending = answered.sends
        while times.count < 4, h.armed != nil {
            for send in pending { _ = h.answer(send, status: 200, json: nil) }
            pending = h.fireAtArmedDeadline().sends
            times += pending.map { _ in h.now.instant }
        }
        #expect(times.count == 4)
        let gaps = zip(times.dropFirst(), times).map { $0.nanoseconds(since: $1) }
        #expect(gaps == [20 * ms, 20 * ms, 20 * ms], "\(gaps)")
    }

    @Test("the probe's failure opens it again for open_for; the jobs stay held and spend nothing")
    func probeFailsReopens() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let (reply, _) = h.submitted(Self.order())
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        let send = try #require(probe)
        #expect(send.job.rawValue == reply.job.id)
        let failed = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503))))
        let change = try #require(failed.breakerChanges.first)
        #expect(change.state == .open && change.message.contains("the probe failed (the server answered 503)"))
        let reopened = h.now.instant
        var next: HTTPSend?
        while next == nil, h.armed != nil { next = h.fireAtArmedDeadline().sends.first }
        #expect(h.now.instant.nanoseconds(since: reopened) >= 30 * second, "nothing goes before open_for has passed again")
    }

    @Test("a probe cancelled before it answers lets the next waiting job probe")
    func cancelledProbe() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let first = h.submitted(Self.order())
        _ = h.submitted(Self.order())
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        #expect(probe?.job.rawValue == first.reply.job.id)
        let cancelled = h.request(.cancel(JobSelector(job: first.reply.job.id)))
        #expect(cancelled.sends.count == 1, "the other job goes as the probe")
    }

    @Test("without breaker_failure_ratio there is no breaker: 20 failures in a row send on")
    func offUnlessConfigured() throws {
        var h = Harness()
        for _ in 0..<20 {
            let send = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
            let effects = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 500))))
            #expect(effects.breakerChanges.isEmpty)
        }
        #expect(h.submitted(Self.order()).effects.sends.count == 1)
    }

    @Test("a reload that takes the breaker away sends the held jobs at once")
    func reloadDropsBreaker() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        #expect(h.submitted(Self.order()).effects.sends.isEmpty)
        #expect(h.handle(.reconfigure(SchedulerConfiguration())).sends.count == 1)
    }

    @Test("a success that brings the window to min_requests with the ratio met opens it; an exact ratio opens it")
    func opensOnSuccess() throws {
        var h = try Self.breaking()
        let sends = (0..<4).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        var states: [[BreakerState]] = []
        for (send, status) in zip(sends, [500, 500, 200, 200]) {
            states.append(h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status)))).breakerChanges.map(\.state))
        }
        #expect(states == [[], [], [], [.open]], "2 of 4 is the ratio 0.5, reached by the fourth end, a success")
    }

    @Test("an answer too large to take (a compression bomb) fails its attempt and is retried, but the breaker does not count it")
    func rejectedAnswerUncounted() throws {
        var h = try Self.breaking { $0.breakerFailureRatio = 1; $0.breakerMinRequests = 1 }
        let send = try #require(h.submitted(Self.order(attempts: 2)).effects.sends.first)
        let why = "the compressed answer decodes to more than 1048576 bytes (http.max_response_bytes)"
        let effects = h.handle(.httpFinished(send.job, attempt: send.attempt, .rejected(why)))
        #expect(effects.breakerChanges.isEmpty, "one failure of one would open it")
        #expect(effects.events(.retrying).map(\.error) == [why])
        let info = try #require(h.requestInfo(send.job.rawValue))
        #expect(info.attempts == 1 && info.lastError == why && info.held != true)
        // The retry goes: the target is not held.
        let retry = try #require(h.fireAtArmedDeadline().sends.first)
        #expect(retry.job == send.job && retry.attempt == send.attempt + 1)
    }

    @Test("an unreachable network does not count: the network hold deals with it")
    func unreachableUncounted() throws {
        var h = try Self.breaking { $0.breakerFailureRatio = 1; $0.breakerMinRequests = 1 }
        var spec = pollSpec(every: 1_000, ephemeral: true)
        spec.url = "https://api.example/jobs/7"
        let poll = h.poll(spec)
        let send = try #require(poll.effects.sends.first)
        let effects = h.handle(.httpFinished(send.job, attempt: send.attempt, .unreachable("could not connect: Network is unreachable")))
        #expect(effects.breakerChanges.isEmpty)
    }

    @Test("a breaker probe that finds the network gone is no verdict: the job is held for the network, spends nothing, and when the route returns it goes as the probe whose 200 closes the breaker")
    func probeMeetsNetworkHold() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let (reply, submitted) = h.submitted(Self.order())
        #expect(submitted.sends.isEmpty)
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        let sent = try #require(probe)
        #expect(sent.job == JobID(reply.job.id))
        let lost = h.handle(.httpFinished(sent.job, attempt: sent.attempt, .unreachable("could not connect: Network is unreachable")))
        #expect(lost.breakerChanges.isEmpty, "not a failure: the breaker neither opens again nor closes")
        #expect(lost.events(.held).map(\.reason) == [.unreachable])
        #expect(h.scheduler.job(JobID(reply.job.id))?.delivery?.attempts == 0, "no attempt spent")

        let round = h.handle(.networkChanged)
        let again = try #require(round.sends.first, "the network hold's probe is the breaker's probe too")
        #expect(again.job == JobID(reply.job.id))
        let back = h.handle(.httpFinished(again.job, attempt: again.attempt, .response(HTTPAnswer(status: 200))))
        #expect(back.breakerChanges.map(\.state) == [.closed])
        #expect(h.scheduler.job(JobID(reply.job.id))?.state == .succeeded)
    }

    @Test("a 503 with Retry-After pauses the target and counts as a failure: the breaker may open during the pause, and the probe waits for both")
    func retryAfterAndBreaker() throws {
        var h = try Self.breaking()
        let sends = (0..<4).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        try #require(sends.count == 4)
        for send in sends.prefix(2) { _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200)))) }
        _ = h.handle(.httpFinished(sends[2].job, attempt: sends[2].attempt, .response(HTTPAnswer(status: 500))))
        let paused = h.handle(
            .httpFinished(sends[3].job, attempt: sends[3].attempt, .response(HTTPAnswer(status: 503, retryAfter: "60"))))
        #expect(paused.breakerChanges.map(\.state) == [.open], "the 503 is the second failure of four")
        let opened = h.now.instant
        let (_, effects) = h.submitted(Self.order())
        #expect(effects.sends.isEmpty)
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        #expect(probe != nil)
        #expect(h.now.instant.nanoseconds(since: opened) >= 60 * second, "not before the 60 s pause, although open_for is 30 s")
    }

    @Test("open past open_for with nothing waiting shows half-open in status; the next request, new, goes as the probe")
    func halfOpenShown() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        h.advance(31 * second)
        func breaker() throws -> TargetBreakerInfo? {
            guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true)), connection: 3).replies.first?.result else {
                throw TestFailure("no summary")
            }
            return summary.targets?.first { $0.target == "api.example:443" }?.breaker
        }
        #expect(try breaker()?.state == .halfOpen && breaker()?.openUntil == nil)
        let (_, effects) = h.submitted(Self.order())
        #expect(effects.sends.count == 1 && effects.breakerChanges.map(\.state) == [.halfOpen])
        #expect(h.submitted(Self.order()).effects.sends.isEmpty, "one probe at a time")
    }

    @Test("a table's breaker_failure_ratio = 0 turns off the breaker [targets.default] gives")
    func ratioZeroTurnsOff() throws {
        var configuration = SchedulerConfiguration()
        try configuration.targets.update("default") { $0.breakerFailureRatio = 0.5 }
        try configuration.targets.update("api.example") { $0.breakerFailureRatio = 0 }
        #expect(configuration.targets.limits(for: "api.example:443").breaker == nil)
        #expect(configuration.targets.limits(for: "other.example:443").breaker == BreakerSettings(failureRatio: 0.5))
    }

    @Test("a reload that adds a breaker counts from then on; one that changes its settings keeps it open")
    func reloadAddsBreaker() throws {
        var h = Harness()
        for _ in 0..<3 {
            let send = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
            _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 500))))
        }
        var configuration = SchedulerConfiguration()
        try configuration.targets.update("api.example") { $0.breakerFailureRatio = 1; $0.breakerMinRequests = 2 }
        _ = h.handle(.reconfigure(configuration))
        var states: [BreakerState] = []
        for _ in 0..<2 {
            let send = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
            states += h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 500)))).breakerChanges.map(\.state)
        }
        #expect(states == [.open], "the ends before the reload were not counted: it opened at the second after it")
        try configuration.targets.update("api.example") { $0.breakerOpenForNanos = 60 * second }
        _ = h.handle(.reconfigure(configuration))
        #expect(h.submitted(Self.order()).effects.sends.isEmpty, "still open after a reload that keeps a breaker")
    }

    @Test("a reload that shortens breaker_open_for ends an open breaker's open time from its opening with the new length")
    func reloadShortensOpenTime() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let opened = h.now.instant
        let (held, effects) = h.submitted(Self.order())
        #expect(effects.sends.isEmpty)
        h.advance(5 * second)
        var configuration = h.scheduler.configuration
        try configuration.targets.update("api.example") { $0.breakerOpenForNanos = 10 * second }
        _ = h.handle(.reconfigure(configuration))
        var probe: HTTPSend?
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        #expect(probe?.job.rawValue == held.job.id)
        #expect(h.now.instant.nanoseconds(since: opened) == 10 * second, "10 s after it opened, not the 30 s it opened with")
    }

    @Test("a request out when it opened, answered after the probe closed it, is not counted in the fresh window")
    func staleEndAfterClose() throws {
        var h = try Self.breaking()
        let early = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
        _ = try Self.open(&h)
        var probe: HTTPSend?
        _ = h.submitted(Self.order())
        while probe == nil, h.armed != nil { probe = h.fireAtArmedDeadline().sends.first }
        #expect(h.answer(try #require(probe), status: 200, json: nil).breakerChanges.map(\.state) == [.closed])
        _ = h.handle(.httpFinished(early.job, attempt: early.attempt, .response(HTTPAnswer(status: 500))))
        guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true)), connection: 3).replies.first?.result else {
            throw TestFailure("no summary")
        }
        let breaker = try #require(summary.targets?.first { $0.target == "api.example:443" }?.breaker)
        #expect(breaker.state == .closed && breaker.failures == 0, "the early request's 500 said nothing of the target now")
    }

    @Test("after a probe is cancelled the next request probes without a second half-open change")
    func oneHalfOpenChange() throws {
        var h = try Self.breaking()
        _ = try Self.open(&h)
        let first = h.submitted(Self.order())
        var changes: [BreakerState] = []
        while changes.isEmpty, h.armed != nil { changes = h.fireAtArmedDeadline().breakerChanges.map(\.state) }
        #expect(changes == [.halfOpen])
        _ = h.request(.cancel(JobSelector(job: first.reply.job.id)))
        let (_, effects) = h.submitted(Self.order())
        #expect(effects.sends.count == 1 && effects.breakerChanges.isEmpty)
    }

    @Test("the window forgets ends older than breaker_window")
    func windowAges() throws {
        var h = try Self.breaking()
        let early = (0..<3).flatMap { _ in h.submitted(Self.order(attempts: 1)).effects.sends }
        for send in early { _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 500)))) }
        h.advance(11 * second)
        let late = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
        let effects = h.handle(.httpFinished(late.job, attempt: late.attempt, .response(HTTPAnswer(status: 500))))
        #expect(effects.breakerChanges.isEmpty, "three failures 11 s ago left the 10 s window")
    }
}
