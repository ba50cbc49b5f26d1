import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("One-shot requests on the injected clock")
struct SubmitTests {
    @Test("a request is sent at once, with its headers kept, and its answer is the job's result")
    func sendsOnceAndKeepsResult() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submitSpec(headers: ["Content-Type: application/json"]))
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
        let (reply, effects) = h.submitted(submitSpec(maxAttempts: 4))
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
        let (reply, _) = h.submitted(submitSpec(maxAttempts: 5))
        let effects = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 404))))
        #expect(effects.sends.isEmpty)
        #expect(effects.events(.failed).count == 1)
        #expect(h.scheduler.job(JobID(reply.job.id))?.error == "the server answered 404")
    }

    @Test("an unanswered attempt is aborted at the request timeout and retried")
    func requestTimeout() throws {
        var h = Harness()
        let (reply, _) = h.submitted(submitSpec(maxAttempts: 2))
        let id = JobID(reply.job.id)
        h.advance(h.scheduler.configuration.requestTimeoutNanos)
        let fired = h.handle(.timerFired)
        #expect(fired.aborts.map(\.1) == [1])
        #expect(fired.events(.retrying).first?.error == "no answer within 30s")
        #expect(h.scheduler.job(id)?.delivery?.attempts ?? 0 <= 2)
    }

    @Test("bad input is refused with a stable code and changes nothing", arguments: [
        (submitSpec(url: "ftp://example.org/x"), SchedulerError.Code.badURL),
        (submitSpec(url: "https://user:secret@example.org/x"), .badURL),
        (submitSpec(url: "https://user@[fe80::1]/x"), .badURL),
        (submitSpec(maxAttempts: 0), .badField),
        (submitSpec(window: -1), .badDuration),
        (submitSpec(dedupeHeaders: ["Bad Header"]), .badField),
        (submitSpec(ephemeral: false, bind: true), .conflictingFields),
        (submitSpec(headers: ["no colon"]), .badField),
    ])
    func refusals(spec: SubmitSpec, code: SchedulerError.Code) {
        var h = Harness()
        let effects = h.request(.submit(spec))
        #expect(effects.errorCodes == [code])
        #expect(effects.sends.isEmpty)
        #expect(h.scheduler.activeJobCount == 0)
        #expect(h.persisted.isEmpty)
    }

    @Test("a URL with credentials is refused without the password in the error")
    func credentialsRefused() {
        var h = Harness()
        // Also when something else is wrong with the URL, whose refusal would echo it.
        for url in [
            "https://alice:s3cret@api.example/hook", "https://alice:s3cret@api.example/a b", "ftp://alice:s3cret@h/",
            "alice:s3cret@h/", "https://alice:s3 cret@h/", "https://alice:s3cret@h:99999/",
        ] {
            let effects = h.request(.submit(submitSpec(url: url)))
            #expect(effects.errorCodes == [.badURL], "\(url)")
            #expect(!"\(effects)".contains("s3cret") && !"\(effects)".contains("s3 cret"), "\(url)")
        }
    }

    @Test("a request job's result keeps its answer's header lines up to 2 KB, in order, as its attempt log does")
    func resultHeadersCapped() {
        var h = Harness()
        let (reply, _) = h.submitted(submitSpec())
        let headers = (0..<80).map { HTTPHeader(name: "X-Filler-\($0)", value: String(repeating: "v", count: 90)) }
        _ = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200, headers: headers))))
        let kept = h.scheduler.job(JobID(reply.job.id))?.result?.headers ?? []
        #expect(kept.first == "X-Filler-0: " + String(repeating: "v", count: 90))
        #expect(kept.reduce(0) { $0 + $1.utf8.count + 1 } <= AttemptInfo.headerBytes + 1)
        #expect(kept.count > 10 && kept.count < 80)
    }

    @Test("an ephemeral request is never written to the store")
    func ephemeralNotStored() {
        var h = Harness()
        let (reply, effects) = h.submitted(submitSpec(ephemeral: true))
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
        let effects = h.request(.submit(submitSpec()))
        #expect(effects.replies.isEmpty)
        #expect(effects.sends.isEmpty)
        let committed = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(committed.replies.count == 1)
        #expect(committed.sends.count == 1)
    }

    @Test("a request job resumes after a restart with its attempts; one out at the crash is sent again")
    func resumesAfterRestart() throws {
        var h = Harness()
        let (reply, _) = h.submitted(submitSpec(maxAttempts: 5))
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
