import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

@Suite("Poll semantics on the injected clock")
struct PollTests {
    @Test("the first request starts at registration, and no second one starts while it is out")
    func noOverlap() {
        var h = Harness()
        let (id, effects) = h.poll(pollSpec())
        #expect(effects.sends.count == 1)
        #expect(effects.sends.first?.attempt == 1)
        #expect(effects.sends.first?.parseJSON == true)
        #expect(h.scheduler.job(id)?.poll?.inFlight == true)
        // While the request is out, only its timeout waits for time.
        #expect(h.armed == h.now.instant.advanced(by: h.scheduler.configuration.requestTimeoutNanos))
        h.advance(h.scheduler.configuration.requestTimeoutNanos - 1)
        #expect(h.handle(.timerFired).sends.isEmpty)
    }

    @Test("after a fast answer the next request starts one interval after the last start")
    func fastAnswerWaitsForInterval() {
        var h = Harness()
        let start = h.now.instant
        let (_, effects) = h.poll(pollSpec())
        h.advance(120 * ms)
        let answered = h.answer(effects.sends[0], json: .remote(state: "running", progress: 5))
        #expect(answered.sends.isEmpty)
        #expect(h.armed == start.advanced(by: 3 * second))
        let fired = h.fireAtArmedDeadline()
        #expect(fired.sends.map(\.attempt) == [2])
        #expect(h.now.instant == start.advanced(by: 3 * second))
    }

    @Test("after a slow answer the next request starts at once, with no idle gap")
    func slowAnswerStartsNextAtOnce() {
        var h = Harness()
        let (id, effects) = h.poll(pollSpec())
        h.advance(4_700 * ms)
        let answered = h.answer(effects.sends[0], json: .remote(state: "running"))
        #expect(answered.sends.map(\.attempt) == [2])
        #expect(h.scheduler.job(id)?.poll?.lastStart == h.now.instant)
    }

    @Test("over many polls with latencies of 0 to 2 intervals, starts follow max(last start + every, last answer)")
    func startRuleHoldsUnderRandomLatency() {
        var h = Harness()
        var random = RandomSource(seed: 7)
        let every = 3 * second
        var (_, effects) = h.poll(pollSpec(until: "/never == true"))
        var send = effects.sends[0]
        var lastStart = h.now.instant
        var outstanding = 1
        for round in 0..<300 {
            let latency = Int64(random.next() % UInt64(2 * every + 1))
            h.advance(latency)
            let answerAt = h.now.instant
            outstanding -= 1
            effects = h.answer(send, json: .remote(state: "running", progress: Double(round)))
            if effects.sends.isEmpty {
                effects = h.fireAtArmedDeadline()
            }
            #expect(effects.sends.count == 1)
            outstanding += effects.sends.count
            #expect(outstanding == 1)
            #expect(h.now.instant == max(lastStart.advanced(by: every), answerAt))
            send = effects.sends[0]
            lastStart = h.now.instant
        }
    }

    @Test("the job succeeds when the condition holds, and keeps the final answer cut to the configured size")
    func succeedsOnCondition() {
        var configuration = SchedulerConfiguration()
        configuration.resultBodyBytes = 16
        var h = Harness(configuration: configuration)
        let (id, effects) = h.poll(pollSpec(until: #"/state == "done" && status == 200"#))
        h.advance(50 * ms)
        let body = #"{"state":"done","note":"écrit"}"#
        let done = h.answer(effects.sends[0], json: .object(["state": .string("done"), "note": .string("écrit")]), text: body)
        let succeeded = done.events(.succeeded)
        #expect(succeeded.count == 1)
        #expect(succeeded.first?.status == 200)
        let job = h.scheduler.job(id)
        #expect(job?.state == .succeeded)
        #expect(job?.result?.status == 200)
        #expect(job?.result?.truncated == true)
        #expect(job?.result?.body == String(body.utf8.prefix(16))!)
        #expect(done.sends.isEmpty)
        #expect(h.armed == nil)
        let status = h.request(.status(StatusRequest(job: id.rawValue)))
        guard case .success(.job(let view))? = status.replies.first?.result else {
            Issue.record("no status")
            return
        }
        #expect(view.job.state == .succeeded)
        #expect(view.job.result?.status == 200)
        #expect(view.job.poll?.polls == 1)
        // The ended poll keeps its condition's text for status, not the parsed clauses.
        #expect(view.job.poll?.until == #"/state == "done" && status == 200"#)
        let parsed = try? PollCondition(parsing: #"/state == "done" && status == 200"#)
        #expect(h.scheduler.table.polls[id]?.machine.condition == parsed?.retired)
        #expect(parsed?.retired != parsed)
    }

    @Test("progress only moves forward: a lower value is dropped and logged, an equal one is no news")
    func progressIsMonotonic() {
        var h = Harness()
        var (id, effects) = h.poll(pollSpec())
        var reported: [Double] = []
        var notes: [String] = []
        for value in [10.0, 30, 20, 30, 55, 54, 100] {
            h.advance(10 * ms)
            effects = h.answer(effects.sends[0], json: .remote(state: "running", progress: value))
            reported += effects.events(.progress).compactMap(\.progress)
            notes += effects.debugNotes
            if effects.sends.isEmpty { effects = h.fireAtArmedDeadline() }
        }
        #expect(reported == [10, 30, 55, 100])
        #expect(notes.count == 2)
        #expect(h.scheduler.job(id)?.poll?.progress == 100)
    }

    @Test("answers that bring no progress are reported as 'polled' with the count")
    func polledEvents() {
        var h = Harness()
        let (_, effects) = h.poll(pollSpec(progress: nil))
        let answered = h.answer(effects.sends[0], json: .remote(state: "running"))
        #expect(answered.events(.polled).map(\.polls) == [1])
        #expect(answered.events(.progress).isEmpty)
    }

    @Test("5xx, 429, transport errors and non-JSON bodies fail; the limit ends the job with the last error")
    func failuresEndTheJob() {
        var h = Harness()
        var (id, effects) = h.poll(pollSpec(maxFailures: 4))
        let start = h.now.instant
        effects = h.answer(effects.sends[0], status: 503, json: nil, text: "busy")
        #expect(h.scheduler.job(id)?.poll?.failures == 1)
        effects = h.fireAtArmedDeadline()
        effects = h.answer(effects.sends[0], status: 429, json: nil)
        effects = h.fireAtArmedDeadline()
        effects = h.answer(effects.sends[0], status: 200, json: nil, text: "<html>")
        #expect(h.scheduler.job(id)?.poll?.failures == 3)
        effects = h.fireAtArmedDeadline()
        effects = h.fail(effects.sends[0], "connection reset by peer")
        let failed = effects.events(.failed)
        #expect(failed.count == 1)
        #expect(failed.first?.error?.contains("connection reset by peer") == true)
        #expect(h.scheduler.job(id)?.state == .failed)
        #expect(h.scheduler.job(id)?.poll?.polls == 4)
        // Backoff: 3 s, 6 s, 12 s between the starts of failed polls.
        #expect(h.now.instant == start.advanced(by: 21 * second))
    }

    @Test("one good answer resets the failure count")
    func successResetsFailures() {
        var h = Harness()
        var (id, effects) = h.poll(pollSpec(maxFailures: 2))
        for round in 0..<6 {
            effects = round.isMultiple(of: 2)
                ? h.answer(effects.sends[0], status: 500, json: nil)
                : h.answer(effects.sends[0], json: .remote(state: "running"))
            if effects.sends.isEmpty { effects = h.fireAtArmedDeadline() }
        }
        #expect(h.scheduler.job(id)?.state == .active)
        #expect(h.scheduler.job(id)?.poll?.failures == 0)
    }

    @Test("failed polls back off but never more often than the interval, up to the cap")
    func backoffBounds() {
        var configuration = SchedulerConfiguration()
        configuration.maxPollBackoffNanos = 10 * second
        var h = Harness(configuration: configuration)
        var (_, effects) = h.poll(pollSpec(every: 1_000, maxFailures: 50))
        var starts: [Instant] = [h.now.instant]
        for _ in 0..<8 {
            effects = h.fail(effects.sends[0])
            effects = h.fireAtArmedDeadline()
            starts.append(h.now.instant)
        }
        let gaps = zip(starts.dropFirst(), starts).map { $0.nanoseconds(since: $1) / second }
        #expect(gaps == [1, 2, 4, 8, 10, 10, 10, 10])
    }

    @Test("a body that is not JSON is no failure when the condition only reads the status")
    func statusConditionNeedsNoJSON() {
        var h = Harness()
        let (id, effects) = h.poll(pollSpec(until: "status in 200..299", progress: nil))
        #expect(effects.sends.first?.parseJSON == false)
        let done = h.answer(effects.sends[0], status: 204, json: nil, text: "")
        #expect(done.events(.succeeded).count == 1)
        #expect(h.scheduler.job(id)?.state == .succeeded)
    }

    @Test("a request unanswered for the request timeout is aborted and counts as a failed poll")
    func requestTimeout() {
        var configuration = SchedulerConfiguration()
        configuration.requestTimeoutNanos = 30 * second
        var h = Harness(configuration: configuration)
        let start = h.now.instant
        let (id, effects) = h.poll(pollSpec(maxFailures: 3))
        #expect(h.armed == start.advanced(by: 30 * second))
        let fired = h.fireAtArmedDeadline()
        #expect(fired.aborts.map(\.1) == [effects.sends[0].attempt])
        #expect(h.scheduler.job(id)?.poll?.failures == 1)
        #expect(h.scheduler.job(id)?.poll?.lastError == "no answer within 30s")
        // The interval has long passed, so the next request starts at once.
        #expect(fired.sends.map(\.attempt) == [2])
        // The late answer of the aborted request changes nothing.
        #expect(h.answer(effects.sends[0], json: .remote(state: "done")).events.isEmpty)
        #expect(h.scheduler.job(id)?.state == .active)
    }

    @Test("the total time limit ends the job timed_out and aborts the request that is out")
    func timeoutAbortsInFlight() {
        var h = Harness()
        let start = h.now.instant
        let (id, effects) = h.poll(pollSpec(timeoutMs: 10_000))
        #expect(h.armed == start.advanced(by: 10 * second))
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.timedOut).count == 1)
        #expect(fired.aborts.map(\.1) == [effects.sends[0].attempt])
        #expect(h.scheduler.job(id)?.state == .timedOut)
        // The late answer of the aborted request changes nothing.
        let late = h.answer(effects.sends[0], json: .remote(state: "done"))
        #expect(late.events.isEmpty)
        #expect(h.scheduler.job(id)?.state == .timedOut)
    }

    @Test("the time limit also cuts the wait between polls")
    func timeoutBetweenPolls() {
        var h = Harness()
        let start = h.now.instant
        let (id, effects) = h.poll(pollSpec(every: 5_000, timeoutMs: 7_000))
        _ = h.answer(effects.sends[0], json: .remote(state: "running"))
        _ = h.fireAtArmedDeadline()
        let second = h.scheduler.job(id)!.poll!
        #expect(second.attempts == 2)
        _ = h.answer(HTTPSend(job: id, attempt: 2, request: second.request, parseJSON: true), json: .remote(state: "running"))
        #expect(h.armed == start.advanced(by: 7 * Harness.second))
        let fired = h.fireAtArmedDeadline()
        #expect(fired.sends.isEmpty)
        #expect(h.scheduler.job(id)?.state == .timedOut)
    }

    @Test("max_polls ends the job timed_out after that many answers")
    func maxPolls() {
        var h = Harness()
        var (id, effects) = h.poll(pollSpec(maxPolls: 3))
        for _ in 0..<3 {
            effects = h.answer(effects.sends[0], json: .remote(state: "running"))
            if effects.sends.isEmpty, h.armed != nil { effects = h.fireAtArmedDeadline() }
        }
        #expect(h.scheduler.job(id)?.state == .timedOut)
        #expect(h.scheduler.job(id)?.error?.contains("3 polls") == true)
        #expect(effects.events(.timedOut).count == 1)
    }

    @Test("cancelling a poll aborts its request on the wire; a stale completion is ignored")
    func cancelAborts() {
        var h = Harness()
        let (id, _) = h.poll(pollSpec(ephemeral: true))
        let cancelled = h.request(.cancel(JobSelector(job: id.rawValue)))
        #expect(cancelled.aborts.map(\.0) == [id])
        #expect(h.handle(.httpFinished(id, attempt: 1, .failure("cancelled"))).events.isEmpty)
        #expect(h.handle(.httpFinished(id, attempt: 9, .failure("x"))).events.isEmpty)
    }

    @Test("bad URLs get bad_url, bad conditions get bad_condition with the column, and nothing is created")
    func refusals() {
        var h = Harness()
        for url in [
            "ftp://example.com/x", "example.com/x", "http://", "http://host:99999/", "http://exa mple.com/", "file:///etc/passwd",
            "HTTPS://user@Example.com",
        ] {
            var s = pollSpec()
            s.url = url
            #expect(h.request(.registerPoll(s)).errorCodes == [.badURL], "\(url)")
        }
        for url in ["http://127.0.0.1:8080/jobs/7?x=1", "https://[::1]:443/a", "HTTPS://Example.com/a@b"] {
            var s = pollSpec(ephemeral: true)
            s.url = url
            #expect(h.request(.registerPoll(s)).errorCodes.isEmpty, "\(url)")
        }
        var bad = pollSpec(until: #"/state == "done" && statuss == 200"#)
        let effects = h.request(.registerPoll(bad))
        guard case .failure(let error)? = effects.replies.first?.result else {
            Issue.record("accepted a bad condition")
            return
        }
        #expect(error.code == .badCondition)
        #expect(error.column == 21)
        bad = pollSpec(progress: "progress")
        #expect(h.request(.registerPoll(bad)).errorCodes == [.badCondition])
        #expect(h.request(.registerPoll(pollSpec(every: 10))).errorCodes == [.badDuration])
        #expect(h.request(.registerPoll(pollSpec(timeoutMs: 0))).errorCodes == [.badDuration])
        #expect(h.request(.registerPoll(pollSpec(maxFailures: 0))).errorCodes == [.badField])
        var header = pollSpec()
        header.headers = ["X-Evil: a\r\nInjected: b"]
        #expect(h.request(.registerPoll(header)).errorCodes == [.badField])
        header.headers = ["NoColon"]
        #expect(h.request(.registerPoll(header)).errorCodes == [.badField])
        #expect(h.scheduler.activeJobCount == 3)
    }

    @Test("a durable poll is stored, and after a restart resumes with its id, counters and progress")
    func resumesAfterRestart() {
        var h = Harness()
        var (id, effects) = h.poll(pollSpec(timeoutMs: 600_000))
        for value in [20.0, 45] {
            h.advance(100 * ms)
            effects = h.answer(effects.sends[0], json: .remote(state: "running", progress: value))
            effects = h.fireAtArmedDeadline()
        }
        _ = h.fail(effects.sends[0])
        let before = h.scheduler.job(id)!.poll!
        #expect(before.polls == 3)
        #expect(before.failures == 1)

        // The daemon is down for one second, then a fresh scheduler restores the rows.
        var (restarted, _) = h.restarted(after: 1 * second)
        let resumed = restarted.scheduler.job(id)?.poll
        #expect(restarted.scheduler.job(id)?.state == .active)
        #expect(resumed?.polls == 3)
        #expect(resumed?.failures == 1)
        #expect(resumed?.progress == 45)
        #expect(resumed?.deadline == before.deadline)
        #expect(resumed?.inFlight == false)
        // The last failed poll started 1.1 s ago, the backoff after one failure is the interval (3 s).
        #expect(restarted.armed == before.lastStart?.advanced(by: 3 * second))
        let fired = restarted.fireAtArmedDeadline()
        #expect(fired.sends.map(\.attempt) == [4])
        let more = restarted.answer(fired.sends[0], json: .remote(state: "running", progress: 40))
        #expect(more.events(.progress).isEmpty)
    }
}
