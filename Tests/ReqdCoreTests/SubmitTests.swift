import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

private func submit(
    method: String = "POST", url: String = "https://api.example/orders", body: String? = "{\"sku\":7}",
    headers: [String]? = nil, maxAttempts: Int? = nil, window: Int64? = nil, dedupeHeaders: [String]? = nil,
    key: String? = nil, scope: String? = nil, ephemeral: Bool? = nil, bind: Bool? = nil, follow: Bool = true
) -> SubmitSpec {
    SubmitSpec(
        request: RequestSpec(
            method: method, url: url, headers: headers, body: body, maxAttempts: maxAttempts, backoffMinMs: 1_000,
            backoffMaxMs: 60_000),
        dedupeWindowMs: window, dedupeHeaders: dedupeHeaders, key: key, scope: scope, ephemeral: ephemeral,
        bindConnection: bind, follow: follow)
}

extension Harness {
    /// Submits a request and returns the reply and the effects.
    mutating func submitted(_ spec: SubmitSpec, connection: UInt64 = 1) -> (reply: RegisterResult, effects: [SchedulerEffect]) {
        let effects = request(.submit(spec), connection: connection)
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("submit failed: \(effects)")
        }
        return (reply, effects)
    }
}

@Suite("One-shot requests on the injected clock")
struct SubmitTests {
    @Test("a request is sent at once, with its headers kept, and its answer is the job's result")
    func sendsOnceAndKeepsResult() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(headers: ["Content-Type: application/json"]))
        let id = JobID(reply.job.id)
        #expect(id.rawValue.hasPrefix("rq_"))
        #expect(reply.job.kind == .request)
        let send = try #require(effects.sends.first)
        #expect(send.request.method == "POST")
        #expect(send.keepHeaders)
        #expect(send.request.body == Array("{\"sku\":7}".utf8))
        let answer = HTTPAnswer(status: 201, body: Array("created".utf8), headers: [HTTPHeader(name: "Location", value: "/orders/9")])
        let done = h.handle(.httpFinished(id, attempt: 1, .response(answer)))
        #expect(done.events(.succeeded).map(\.attempt) == [1])
        let job = try #require(h.scheduler.job(id))
        #expect(job.state == .succeeded)
        #expect(job.result == HTTPResult(status: 201, headers: ["Location: /orders/9"], body: "created", truncated: false))
        #expect(h.persisted.contains { if case .insert(let r) = $0 { r.id == id.rawValue } else { false } })
    }

    @Test("transport errors, 5xx and 429 are retried with backoff until max_attempts; then the job is dead")
    func retriesThenFails() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(maxAttempts: 4))
        let id = JobID(reply.job.id)
        var send = try #require(effects.sends.first)
        var waits: [Int64] = []
        for (attempt, outcome) in [(1, HTTPOutcome.failure("connection refused")), (2, .response(HTTPAnswer(status: 503))), (3, .response(HTTPAnswer(status: 429)))] {
            #expect(send.attempt == UInt32(attempt))
            let failed = h.handle(.httpFinished(id, attempt: send.attempt, outcome))
            #expect(failed.events(.retrying).map(\.attempt) == [attempt])
            let before = h.now.instant
            var next = failed.sends
            if next.isEmpty { next = h.fireAtArmedDeadline().sends }
            waits.append(h.now.instant.nanoseconds(since: before))
            send = try #require(next.first)
        }
        // Full jitter: each wait lies between 0 and min(cap, 1 s doubled per earlier failure).
        for (index, wait) in waits.enumerated() { #expect((0...(second << index)).contains(wait)) }
        let last = h.handle(.httpFinished(id, attempt: send.attempt, .response(HTTPAnswer(status: 502, body: Array("bad gateway".utf8)))))
        #expect(last.sends.isEmpty)
        let job = try #require(h.scheduler.job(id))
        #expect(job.state == .dead)
        #expect(job.error == "4 attempts failed; the last: the server answered 502")
        #expect(job.result?.status == 502)
    }

    @Test("any other 4xx fails at once, without a retry")
    func clientErrorFailsAtOnce() throws {
        var h = Harness()
        let (reply, _) = h.submitted(submit(maxAttempts: 5))
        let effects = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 404))))
        #expect(effects.sends.isEmpty)
        #expect(effects.events(.failed).count == 1)
        #expect(h.scheduler.job(JobID(reply.job.id))?.error == "the server answered 404")
    }

    @Test("an unanswered attempt is aborted at the request timeout and retried")
    func requestTimeout() throws {
        var h = Harness()
        let (reply, _) = h.submitted(submit(maxAttempts: 2))
        let id = JobID(reply.job.id)
        h.advance(h.scheduler.configuration.requestTimeoutNanos)
        let fired = h.handle(.timerFired)
        #expect(fired.aborts.map(\.1) == [1])
        #expect(fired.events(.retrying).first?.error == "no answer within 30s")
        #expect(h.scheduler.job(id)?.delivery?.attempts ?? 0 <= 2)
    }

    @Test("bad input is refused with a stable code and changes nothing", arguments: [
        (submit(url: "ftp://example.org/x"), SchedulerError.Code.badURL),
        (submit(maxAttempts: 0), .badField),
        (submit(window: -1), .badDuration),
        (submit(dedupeHeaders: ["Bad Header"]), .badField),
        (submit(ephemeral: false, bind: true), .conflictingFields),
        (submit(headers: ["no colon"]), .badField),
    ])
    func refusals(spec: SubmitSpec, code: SchedulerError.Code) {
        var h = Harness()
        let effects = h.request(.submit(spec))
        #expect(effects.errorCodes == [code])
        #expect(effects.sends.isEmpty)
        #expect(h.scheduler.activeJobCount == 0)
        #expect(h.persisted.isEmpty)
    }

    @Test("an ephemeral request is never written to the store")
    func ephemeralNotStored() {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(ephemeral: true))
        #expect(reply.job.durable == false)
        #expect(effects.sends.count == 1)
        _ = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 503))))
        _ = h.fireAtArmedDeadline()
        #expect(h.persisted.isEmpty)
    }

    @Test("a durable request is acknowledged only after its commit")
    func durableAckAfterCommit() {
        var h = Harness()
        h.autoCommit = false
        let effects = h.request(.submit(submit()))
        #expect(effects.replies.isEmpty)
        #expect(effects.sends.isEmpty)
        let committed = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(committed.replies.count == 1)
        #expect(committed.sends.count == 1)
    }

    @Test("a request job resumes after a restart with its attempts; one out at the crash is sent again")
    func resumesAfterRestart() throws {
        var h = Harness()
        let (reply, _) = h.submitted(submit(maxAttempts: 5))
        let id = JobID(reply.job.id)
        _ = h.handle(.httpFinished(id, attempt: 1, .response(HTTPAnswer(status: 500))))
        var fired = h.fireAtArmedDeadline()
        if fired.sends.isEmpty { fired = h.fireAtArmedDeadline() }
        #expect(fired.sends.map(\.attempt) == [2])
        var (restarted, restored) = h.restarted()
        #expect(restored.sends.isEmpty)
        let resent = restarted.fireAtArmedDeadline()
        #expect(resent.sends.map(\.attempt) == [2])
        #expect(restarted.scheduler.job(id)?.delivery?.lastStatus == 500)
    }
}

@Suite("Dedupe window on the injected clock")
struct DedupeTests {
    @Test("an identical request inside the window returns the existing job; the target sees one request")
    func hitInsideWindow() {
        var h = Harness()
        let first = h.submitted(submit())
        h.advance(3 * second - 1)
        let second = h.submitted(submit())
        #expect(second.reply.deduplicated == true)
        #expect(second.reply.job.id == first.reply.job.id)
        #expect(second.effects.sends.isEmpty)
        #expect(h.scheduler.activeJobCount == 1)
    }

    @Test("the window counts from the first registration: a duplicate does not extend it")
    func windowFromFirst() {
        var h = Harness()
        let first = h.submitted(submit())
        h.advance(2 * second)
        #expect(h.submitted(submit()).reply.deduplicated == true)
        h.advance(1 * second)
        _ = h.handle(.timerFired)
        let third = h.submitted(submit())
        #expect(third.reply.deduplicated == nil)
        #expect(third.reply.job.id != first.reply.job.id)
        #expect(third.effects.sends.count == 1)
    }

    @Test("entries expire through the one timer: the heap holds the window's end")
    func expiryThroughTimer() {
        var h = Harness()
        let start = h.now.instant
        let (reply, _) = h.submitted(submit())
        _ = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200))))
        #expect(h.armed == start.advanced(by: 3 * second))
        _ = h.fireAtArmedDeadline()
        #expect(h.armed == nil)
        #expect(h.scheduler.dedupe.isEmpty)
    }

    /// The base request of the fingerprint cases, with one thing changed.
    private static func like(
        method: String = "POST", url: String = "https://api.example/orders", body: String = "{\"sku\":7}",
        trace: String = "1", authorization: String = "Bearer one", window: Int64? = nil
    ) -> SubmitSpec {
        submit(
            method: method, url: url, body: body, headers: ["X-Trace: \(trace)", "Authorization: \(authorization)"],
            window: window, dedupeHeaders: ["authorization"])
    }

    @Test("what counts in the fingerprint", arguments: [
        // (second request, deduplicated?)
        (like(), true),
        (like(url: "HTTPS://API.example:443/orders"), true),
        (like(trace: "2"), true),
        (like(url: "https://api.example/orders?b=2&a=1"), false),
        (like(method: "PUT"), false),
        (like(body: "{\"sku\":8}"), false),
        (like(authorization: "Bearer other"), false),
        (like(window: 0), false),
    ])
    func fingerprint(second: SubmitSpec, deduplicated: Bool) {
        var h = Harness()
        _ = h.submitted(Self.like())
        #expect((h.submitted(second).reply.deduplicated == true) == deduplicated)
    }

    @Test("query parameters are sorted, so their order does not matter")
    func sortedQuery() {
        var h = Harness()
        _ = h.submitted(submit(url: "https://api.example/search?q=a&page=2"))
        #expect(h.submitted(submit(url: "https://api.example/search?page=2&q=a#top")).reply.deduplicated == true)
        #expect(RequestURL.normalized("HTTP://Example.ORG:80?b=1&a=2&a=1") == "http://example.org/?a=2&a=1&b=1")
        #expect(RequestURL.normalized("https://u@h.example:8443/p") == "https://u@h.example:8443/p")
    }

    @Test("other owners never share a dedupe entry")
    func perOwner() {
        var h = Harness()
        _ = h.submitted(submit(), connection: 1)
        #expect(h.submitted(submit(), connection: 2).reply.deduplicated == nil)
    }

    @Test("a duplicate of a job still waiting for its commit is answered after that commit")
    func duplicateOfStaged() {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.submit(submit()))
        let duplicate = h.request(.submit(submit()))
        #expect(duplicate.replies.isEmpty)
        var replies: [RegisterResult] = []
        while !h.pendingBarriers.isEmpty {
            for reply in h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil)).replies {
                if case .success(.registered(let result)) = reply.result { replies.append(result) }
            }
        }
        #expect(replies.count == 2)
        #expect(replies.map(\.deduplicated) == [nil, true])
        #expect(Set(replies.map(\.job.id)).count == 1)
    }

    @Test("a cancelled job's fingerprint is forgotten, so the same request can be sent again")
    func cancelForgets() {
        var h = Harness()
        let first = h.submitted(submit())
        _ = h.request(.cancel(JobSelector(job: first.reply.job.id)))
        #expect(h.submitted(submit()).reply.deduplicated == nil)
    }
}

@Suite("Scopes, connection-bound jobs and latest-wins on the injected clock")
struct HygieneTests {
    @Test("cancel --scope reaches every kind: the countdown stops, requests in flight are aborted")
    func scopeCancelAllKinds() throws {
        var h = Harness()
        let countdown = h.countdown(key: "c", seconds: 60, scope: "page")
        let (poll, pollEffects) = h.poll(
            PollSpec(url: "https://api.example/jobs/7", everyMs: 1_000, until: "status == 200", scope: "page"))
        let (request, requestEffects) = h.submitted(submit(scope: "page"))
        let (other, _) = h.submitted(submit(url: "https://api.example/other", scope: "elsewhere"))
        #expect(pollEffects.sends.count == 1 && requestEffects.sends.count == 1)
        let effects = h.request(.cancel(JobSelector(scope: "page")))
        guard case .success(.cancelled(let result))? = effects.replies.first?.result else { throw Failure("no reply") }
        #expect(result.count == 3)
        #expect(Set(result.cancelled) == [countdown.id.rawValue, poll.rawValue, request.job.id])
        #expect(Set(effects.aborts.map(\.0.rawValue)) == [poll.rawValue, request.job.id])
        #expect(h.scheduler.job(countdown.id)?.state == .cancelled)
        #expect(h.scheduler.job(JobID(other.job.id))?.state == .active)
        // Late answers of the aborted requests change nothing.
        #expect(h.handle(.httpFinished(JobID(request.job.id), attempt: 1, .response(HTTPAnswer(status: 200)))).events.isEmpty)
    }

    @Test("closing a connection cancels only the jobs bound to it, with reason connection_closed")
    func connectionBound() throws {
        var h = Harness()
        let bound = h.submitted(submit(bind: true), connection: 1)
        let boundCountdown = h.request(
            .registerCountdown(CountdownSpec(key: "b", durationMs: 60_000, bindConnection: true)), connection: 1)
        let free = h.submitted(submit(url: "https://api.example/free"), connection: 1)
        let otherConnection = h.submitted(submit(url: "https://api.example/third", bind: true), connection: 2)
        #expect(bound.reply.job.durable == false)
        #expect(bound.reply.job.boundToConnection == true)
        #expect(boundCountdown.errorCodes.isEmpty)
        let closed = h.handle(.connectionClosed(ConnectionID(1)))
        let cancelled = closed.events(.cancelled)
        #expect(cancelled.count == 2)
        #expect(cancelled.allSatisfy { $0.reason == .connectionClosed })
        #expect(closed.aborts.map(\.0.rawValue) == [bound.reply.job.id])
        #expect(h.scheduler.job(JobID(free.reply.job.id))?.state == .active)
        #expect(h.scheduler.job(JobID(otherConnection.reply.job.id))?.state == .active)
        #expect(!h.persisted.contains { $0.jobID == bound.reply.job.id })
    }

    @Test("latest wins across kinds: the old job is superseded and its request aborted before the new one starts")
    func latestWins() throws {
        var h = Harness()
        let old = h.submitted(submit(url: "https://api.example/search?q=a", key: "search"))
        let (poll, _) = h.poll(PollSpec(url: "https://api.example/p", everyMs: 1_000, until: "status == 200", key: "watch"))
        let new = h.submitted(submit(url: "https://api.example/search?q=ab", key: "search"))
        #expect(new.reply.replaced == old.reply.job.id)
        let order = new.effects.compactMap { effect -> String? in
            switch effect {
            case .abort(let id, _): "abort \(id)"
            case .send(let send): "send \(send.job)"
            case .reply: "reply"
            case .deliver(let event, _) where event.type == .cancelled: "cancelled \(event.job)"
            default: nil
            }
        }
        #expect(order == ["abort \(old.reply.job.id)", "cancelled \(old.reply.job.id)", "send \(new.reply.job.id)", "reply"])
        let oldJob = try #require(h.scheduler.job(JobID(old.reply.job.id)))
        #expect(oldJob.state == .cancelled && oldJob.reason == .superseded)
        // The old request's late answer emits nothing: no event of the old job after the new reply.
        #expect(h.handle(.httpFinished(JobID(old.reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200)))).events.isEmpty)
        // A countdown with a poll's key replaces the poll: keys are shared by every kind.
        let countdown = h.countdown(key: "watch", seconds: 10)
        #expect(countdown.reply.replaced == poll.rawValue)
    }
}

@Suite("A countdown's on_expire request")
struct OnExpireTests {
    private func spec(ephemeral: Bool = false) -> CountdownSpec {
        CountdownSpec(
            key: "k", durationMs: 5_000, ephemeral: ephemeral,
            onExpire: RequestSpec(method: "POST", url: "https://hooks.example/done", body: "{}", maxAttempts: 3))
    }

    @Test("at expiry the request starts as a job of its own, exactly once, in the expiry's transaction")
    func firesOnce() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(spec()))
        let registered = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        guard case .success(.registered(let reply))? = registered.replies.first?.result else { throw Failure("no reply") }
        #expect(reply.job.onExpire?.url == "https://hooks.example/done")
        let expired = h.fireAtArmedDeadline()
        let event = try #require(expired.events(.expired).first)
        let spawned = try #require(event.spawned)
        #expect(expired.sends.isEmpty, "not sent before the expiry and the request job are on disk")
        // The countdown's expiry and the request job are written before one commit barrier.
        let writes = expired.compactMap { effect -> String? in
            switch effect {
            case .persist(.update(let record)): "update \(record.id) \(record.state.rawValue)"
            case .persist(.insert(let record)): "insert \(record.id)"
            case .commitBarrier: "barrier"
            default: nil
            }
        }
        #expect(writes == ["update \(reply.job.id) expired", "insert \(spawned)", "barrier"])
        // Its id is already known, so a `wait` on it before the commit is held, not refused.
        #expect(h.request(.wait(WaitRequest(job: spawned))).replies.isEmpty)
        let committed = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(committed.sends.map(\.job.rawValue) == [spawned])
        #expect(committed.sends.first?.request.method == "POST")
        let job = try #require(h.scheduler.job(JobID(spawned)))
        #expect(job.delivery?.parent?.rawValue == reply.job.id)
        #expect(job.delivery?.maxAttempts == 3)
        #expect(h.fireAtArmedDeadline().sends.count <= 1)
        #expect(h.scheduler.table.headers.values.filter { $0.kind == .request }.count == 1)
    }

    @Test("a cancelled countdown never sends its on_expire request")
    func neverAfterCancel() {
        var h = Harness()
        _ = h.request(.registerCountdown(spec(ephemeral: true)))
        _ = h.request(.cancel(JobSelector(key: "k")))
        h.advance(10 * second)
        let fired = h.handle(.timerFired)
        #expect(fired.sends.isEmpty)
        #expect(h.scheduler.table.headers.values.allSatisfy { $0.kind == .countdown })
    }

    @Test("a countdown that expired while the daemon was down sends its request once after the restart")
    func afterRestart() {
        var h = Harness()
        _ = h.request(.registerCountdown(spec()))
        let records = h.persisted.compactMap { if case .insert(let r) = $0 { r } else { nil } }
        var restarted = Harness()
        restarted.now = h.now
        restarted.advance(60 * second)
        restarted.scheduler = Scheduler(configuration: SchedulerConfiguration(), seed: 1, now: restarted.now)
        _ = restarted.handle(.restore(records))
        let fired = restarted.handle(.timerFired)
        #expect(fired.events(.expired).first?.spawned != nil)
        #expect(fired.sends.count == 1)
    }
}

private struct Failure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
