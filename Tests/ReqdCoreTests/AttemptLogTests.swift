import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

private func submit(maxAttempts: Int, ephemeral: Bool = false) -> SubmitSpec {
    SubmitSpec(
        request: RequestSpec(
            method: "POST", url: "https://api.example/orders", body: "{}", maxAttempts: maxAttempts, backoffMinMs: 1_000,
            backoffMaxMs: 1_000),
        dedupeWindowMs: 0, ephemeral: ephemeral ? true : nil)
}

extension Harness {
    /// `status JOB` with its attempt log, as the reply gives it.
    mutating func attempts(of id: String) throws -> [AttemptInfo] {
        let replies = request(.status(StatusRequest(job: id, attempts: true))).replies
        guard case .success(.job(let result))? = replies.first?.result else {
            Issue.record("no job reply: \(replies)")
            return []
        }
        return try #require(result.job.attempts)
    }
}

@Suite("Attempt logs: a request or poll job's last 5 attempts")
struct AttemptLogTests {
    @Test("a request job keeps its last 5 attempts: start, duration, address, status, error, headers; the store gets each")
    func lastFive() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(maxAttempts: 7))
        var send = try #require(effects.sends.first)
        var starts = [h.now.wall]
        for attempt in 1...6 {
            #expect(send.attempt == UInt32(attempt))
            h.advance(250 * 1_000_000)
            let after: [SchedulerEffect]
            if attempt.isMultiple(of: 2) {
                after = h.handle(.httpFinished(send.job, attempt: send.attempt, .failure("connection refused"), address: nil))
            } else {
                let headers = [HTTPHeader(name: "Content-Type", value: "text/plain"), HTTPHeader(name: "X-Attempt", value: "\(attempt)")]
                after = h.handle(
                    .httpFinished(
                        send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503, headers: headers)), address: "192.0.2.7:443"))
            }
            let next = h.nextSend(after: after)
            send = try #require(next)
            starts.append(h.now.wall)
        }
        let log = try h.attempts(of: reply.job.id)
        #expect(log.map(\.number) == [2, 3, 4, 5, 6], "the oldest went past 5")
        #expect(log.allSatisfy { $0.durationMs == 250 }, "from its send to its end on the injected clock")
        let first = try #require(log.first)
        let milliseconds = { (time: WallTime) in time.nanosecondsSinceEpoch / 1_000_000 }
        #expect(log.map { milliseconds($0.startedAt) } == starts[1...5].map(milliseconds), "each when its send went out, to the millisecond the store keeps")
        #expect(first.error == "connection refused" && first.status == nil && first.address == nil && first.headers == nil)
        let answered = log[1]
        #expect(answered.status == 503 && answered.error == nil && answered.address == "192.0.2.7:443")
        #expect(answered.headers == ["Content-Type: text/plain", "X-Attempt: 3"])
        let stored = h.persisted.compactMap { if case .attempt(reply.job.id, let a) = $0 { a } else { nil } }
        #expect(stored.map(\.number) == [1, 2, 3, 4, 5, 6], "every attempt is written as it ends")
    }

    @Test("headers past 2 KB are left out, and the entry says so")
    func headersCapped() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(maxAttempts: 1))
        let send = try #require(effects.sends.first)
        let big = (0..<40).map { HTTPHeader(name: "X-Filler-\($0)", value: String(repeating: "v", count: 80)) }
        _ = h.answer(send, status: 200, headers: big)
        let log = try h.attempts(of: reply.job.id)
        let attempt = try #require(log.first)
        let kept = try #require(attempt.headers)
        #expect(kept.count < big.count && attempt.headersTruncated == true)
        #expect(kept.map { $0.utf8.count + 1 }.reduce(0, +) <= AttemptInfo.headerBytes + 1)
        #expect(kept.first == "X-Filler-0: " + String(repeating: "v", count: 80))
    }

    @Test("a durable job's log is never on the heap: the reply reads it from the store; an ephemeral job keeps its own")
    func endedJobs() throws {
        var h = Harness()
        let (durable, durableEffects) = h.submitted(submit(maxAttempts: 2))
        var send = try #require(durableEffects.sends.first)
        let retried = h.nextSend(after: h.answer(send, status: 500, headers: []))
        send = try #require(retried)
        _ = h.answer(send, status: 200, headers: [])
        let job = try #require(h.scheduler.job(JobID(durable.job.id)))
        #expect(job.state == .succeeded)
        #expect(job.delivery?.log.entries.isEmpty == true)
        let asked = h.request(.status(StatusRequest(job: durable.job.id, attempts: true)))
        #expect(asked.replies.count == 1, "the harness answers replyWithStoredAttempts as the store would")
        let durableLog = try h.attempts(of: durable.job.id)
        #expect(durableLog.map(\.status) == [500, 200])

        let (ephemeral, ephemeralEffects) = h.submitted(submit(maxAttempts: 1, ephemeral: true))
        _ = h.answer(try #require(ephemeralEffects.sends.first), status: 404, headers: [])
        #expect(h.scheduler.job(JobID(ephemeral.job.id))?.delivery?.log.entries.map(\.status) == [404])
        #expect(!h.persisted.contains { $0.jobID == ephemeral.job.id })
        let ephemeralLog = try h.attempts(of: ephemeral.job.id)
        #expect(ephemeralLog.map(\.status) == [404])
    }

    @Test("a status without attempts: true carries none")
    func onlyWhenAsked() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(submit(maxAttempts: 1))
        _ = h.answer(try #require(effects.sends.first), status: 200, headers: [])
        guard case .success(.job(let result))? = h.request(.status(StatusRequest(job: reply.job.id))).replies.first?.result else {
            Issue.record("no reply")
            return
        }
        #expect(result.job.attempts == nil)
    }

    @Test("a poll logs each request, a request timeout included, and its result keeps no headers")
    func pollRequests() throws {
        var h = Harness()
        let (id, effects) = h.poll(PollSpec(url: "https://api.example/jobs/1", everyMs: 1_000, until: "status == 200"))
        let first = try #require(effects.sends.first)
        #expect(first.keepHeaders)
        h.advance(30 * second)
        let timedOut = h.fireAtArmedDeadline()
        #expect(timedOut.aborts.count == 1)
        let next = h.nextSend(after: timedOut)
        let second = try #require(next)
        _ = h.handle(
            .httpFinished(
                second.job, attempt: second.attempt,
                .response(HTTPAnswer(status: 200, headers: [HTTPHeader(name: "ETag", value: "\"v2\"")])), address: "[2001:db8::1]:443"))
        let log = try h.attempts(of: id.rawValue)
        #expect(log.map(\.number) == [1, 2])
        #expect(log[0].error == "no answer within 30s" && log[0].durationMs == 30_000)
        #expect(log[1].address == "[2001:db8::1]:443" && log[1].headers == ["ETag: \"v2\""])
        #expect(h.scheduler.job(id)?.result?.headers == nil)
    }

    @Test("after a restart a durable job's log comes from the store, and its next attempt adds to it")
    func restart() throws {
        var h = Harness()
        let (active, effects) = h.submitted(submit(maxAttempts: 5))
        _ = h.answer(try #require(effects.sends.first), status: 503, headers: [])
        var (restarted, restoreEffects) = h.restarted(after: 5 * second)
        restarted.persisted = h.persisted + restarted.persisted
        let resent = restarted.nextSend(after: restoreEffects)
        _ = restarted.answer(try #require(resent), status: 200, headers: [])
        let log = try restarted.attempts(of: active.job.id)
        #expect(log.map(\.status) == [503, 200])
    }

    @Test("an attempt aborted at its request timeout gets the address the executor learns after the abort")
    func addressAfterTimeout() throws {
        for ephemeral in [false, true] {
            var h = Harness()
            let (reply, effects) = h.submitted(submit(maxAttempts: 1, ephemeral: ephemeral))
            let send = try #require(effects.sends.first)
            h.advance(30 * second)
            #expect(h.fireAtArmedDeadline().aborts.count == 1)
            _ = h.handle(.attemptAddressed(send.job, attempt: 2, address: "192.0.2.9:80"))
            _ = h.handle(.attemptAddressed(send.job, attempt: send.attempt, address: "192.0.2.7:443"))
            let log = try h.attempts(of: reply.job.id)
            #expect(log.map(\.address) == ["192.0.2.7:443"], "only the attempt it names, ephemeral: \(ephemeral)")
            #expect(log.first?.error == "no answer within 30s")
        }
    }

    @Test("a durable poll holds its attempts in memory while it runs; they are written when it ends, or at shutdown, and come back at a restart")
    func durablePoll() throws {
        var h = Harness()
        let spec = PollSpec(url: "https://api.example/jobs/2", everyMs: 1_000, until: "status == 200", maxFailures: 10)
        let (id, effects) = h.poll(spec)
        var send = try #require(effects.sends.first)
        for _ in 0..<3 {
            let after = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503)), address: "192.0.2.1:443"))
            let next = h.nextSend(after: after)
            send = try #require(next)
        }
        let written = { (h: Harness) in h.persisted.filter { if case .attempt(id.rawValue, _) = $0 { true } else { false } }.count }
        #expect(written(h) == 0, "no store write per answer")
        #expect(try h.attempts(of: id.rawValue).map(\.status) == [503, 503, 503])

        _ = h.handle(.shutdown)
        #expect(written(h) == 3, "a clean stop writes what the store lacks")
        var (restarted, restoreEffects) = h.restarted(after: 1 * second)
        #expect(restarted.scheduler.job(id)?.poll?.log.entries.count == 3 && restarted.scheduler.job(id)?.poll?.log.unwritten == 0)
        // Read back while it runs, it has the parsed clauses it runs on.
        let condition = try PollCondition(parsing: "status == 200")
        #expect(restarted.scheduler.table.polls[id]?.machine.condition == condition)
        restarted.persisted = h.persisted + restarted.persisted
        let resent = restarted.nextSend(after: restoreEffects)
        let again = try #require(resent)
        _ = restarted.handle(.httpFinished(again.job, attempt: again.attempt, .response(HTTPAnswer(status: 200)), address: "192.0.2.1:443"))
        #expect(restarted.scheduler.job(id)?.state == .succeeded)
        #expect(restarted.scheduler.job(id)?.poll?.log.entries.isEmpty == true, "once ended, only the store has it")
        let log = try restarted.attempts(of: id.rawValue)
        #expect(log.map(\.status) == [503, 503, 503, 200])
        // Read back once ended, the poll keeps its condition's text only, as when it ended here.
        let (ended, _) = restarted.restarted(after: 1 * second)
        #expect(ended.scheduler.job(id)?.state == .succeeded)
        #expect(ended.scheduler.table.polls[id]?.machine.condition == condition.retired)
    }

    @Test("a crash loses at most poll.attempts_write_interval of a running durable poll's log; 0 writes every answer's attempt")
    func durablePollWritesOnInterval() throws {
        for interval in [10 * second, 0] {
            var configuration = SchedulerConfiguration()
            configuration.pollAttemptsWriteNanos = interval
            var h = Harness(configuration: configuration)
            let (id, effects) = h.poll(PollSpec(url: "https://api.example/jobs/4", everyMs: 1_000, until: "status == 204"))
            var send = try #require(effects.sends.first)
            var writtenAt: [Int] = []
            // 14 answers, one a second: numbers 1 to 14, sent at 0 s to 13 s.
            for number in 1...14 {
                let after = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200)), address: "192.0.2.1:443"))
                let written = after.compactMap { if case .persist(.attempt(id.rawValue, let attempt)) = $0 { attempt.number } else { nil } }
                if !written.isEmpty { writtenAt.append(number) }
                // Attempt 1 started at 0 s; after answer 10 the next would start at 10 s.
                if interval > 0, number == 10 { #expect(written == [6, 7, 8, 9, 10], "the newest 5 go, at the answer before the interval ends") }
                guard number < 14 else { break }
                let next = h.nextSend(after: after)
                send = try #require(next)
            }
            #expect(writtenAt == (interval > 0 ? [10] : Array(1...14)), "interval \(interval)")
            // A crash: no shutdown, so what is in memory alone is lost.
            let (restarted, _) = h.restarted(after: 1 * second)
            let kept = try #require(restarted.scheduler.job(id)?.poll?.log.entries).map(\.number)
            #expect(kept == (interval > 0 ? [6, 7, 8, 9, 10] : [10, 11, 12, 13, 14]), "interval \(interval): the 4 attempts of the last 4 s are lost")
        }
    }

    @Test("a poll slower than poll.attempts_write_interval writes each answer's attempt: the next poll would start past the interval")
    func slowPollWritesEachAnswer() throws {
        var configuration = SchedulerConfiguration()
        configuration.pollAttemptsWriteNanos = 60 * second
        var h = Harness(configuration: configuration)
        let (id, effects) = h.poll(PollSpec(url: "https://api.example/jobs/5", everyMs: 300_000, until: "status == 204"))
        var send = try #require(effects.sends.first)
        for number in 1...3 {
            let after = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200)), address: "192.0.2.1:443"))
            let written = after.compactMap { if case .persist(.attempt(id.rawValue, let attempt)) = $0 { attempt.number } else { nil } }
            #expect(written == [number], "a 5-minute poll's attempt is not left unwritten until its next answer")
            let next = h.nextSend(after: after)
            send = try #require(next)
        }
    }

    @Test("a running durable poll's attempt that timed out and was written gets its address in the store too")
    func addressAfterIntervalWrite() throws {
        var configuration = SchedulerConfiguration()
        configuration.pollAttemptsWriteNanos = 0
        var h = Harness(configuration: configuration)
        let (id, effects) = h.poll(PollSpec(url: "https://api.example/jobs/6", everyMs: 1_000, until: "status == 200", maxFailures: 10))
        let send = try #require(effects.sends.first)
        var fired: [SchedulerEffect] = []
        while fired.aborts.isEmpty, h.armed != nil { fired = h.fireAtArmedDeadline() }
        let written = fired.compactMap { if case .persist(.attempt(id.rawValue, let attempt)) = $0 { attempt } else { nil } }
        #expect(written.map(\.address) == [nil] && written.first?.error?.contains("no answer") == true, "\(written)")
        let addressed = h.handle(.attemptAddressed(send.job, attempt: send.attempt, address: "192.0.2.7:443"))
        #expect(addressed.contains { if case .persist(.attemptAddress(id.rawValue, Int(send.attempt), "192.0.2.7:443")) = $0 { true } else { false } })
        #expect(h.scheduler.job(id)?.poll?.log.entries.last?.address == "192.0.2.7:443")
    }

    @Test("once the daemon is stopping, a durable poll's answers go to the store as they come")
    func answersWhileStopping() throws {
        var h = Harness()
        let (id, effects) = h.poll(PollSpec(url: "https://api.example/jobs/3", everyMs: 1_000, until: "status == 200", maxFailures: 10))
        let send = try #require(effects.sends.first)
        _ = h.handle(.shutdown)
        let after = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503)), address: "192.0.2.1:443"))
        let written = after.compactMap { if case .persist(.attempt(id.rawValue, let attempt)) = $0 { attempt } else { nil } }
        #expect(written.map(\.status) == [503])
    }

    @Test("a job may not set reqd's own tag header")
    func tagHeaderRefused() {
        var h = Harness()
        let spec = SubmitSpec(
            request: RequestSpec(method: "GET", url: "https://api.example/x", headers: ["X-Reqd-Attempt: 1"]), dedupeWindowMs: 0)
        #expect(h.request(.submit(spec)).errorCodes == [.badField])
    }
}
