import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

private func spec(
    url: String = "https://api.example/orders", headers: [String]? = nil, maxAttempts: Int = 3, retryOn: [String]? = nil,
    onSuccess: RequestSpec? = nil, onFailure: RequestSpec? = nil
) -> SubmitSpec {
    SubmitSpec(
        request: RequestSpec(
            method: "POST", url: url, headers: headers, body: "{}", maxAttempts: maxAttempts, backoffMinMs: 1_000,
            backoffMaxMs: 1_000, retryOn: retryOn),
        dedupeWindowMs: 0, follow: true, onSuccess: onSuccess, onFailure: onFailure)
}

extension Harness {
    /// Answers a request job's attempt with a status and headers.
    mutating func answer(_ send: HTTPSend, status: Int, headers: [HTTPHeader]) -> [SchedulerEffect] {
        handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status, headers: headers))))
    }

    /// The next send of a request job: at once, or when its timer fires.
    mutating func nextSend(after effects: [SchedulerEffect]) -> HTTPSend? {
        effects.sends.first ?? fireAtArmedDeadline().sends.first
    }
}

@Suite("The durable queue's retry policy on the injected clock")
struct RetryPolicyTests {
    @Test("which answers are retried: 408, 425, 429 and 5xx by default; retry_on overrides", arguments: [
        (nil as [String]?, 408, true), (nil, 425, true), (nil, 429, true), (nil, 503, true), (nil, 404, false),
        (nil, 400, false), (["5xx", "404"], 404, true), (["5xx", "404"], 429, false), (["5xx", "404"], 502, true),
    ])
    func retriedStatuses(retryOn: [String]?, status: Int, retried: Bool) throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(retryOn: retryOn))
        let after = h.answer(try #require(effects.sends.first), status: status, headers: [])
        #expect(!after.events(.retrying).isEmpty == retried)
        #expect(h.scheduler.job(JobID(reply.job.id))?.state == (retried ? .active : .failed))
    }

    @Test("a bad retry_on entry is refused")
    func badRetryOn() {
        var h = Harness()
        #expect(h.request(.submit(spec(retryOn: ["5xx", "teapot"]))).errorCodes == [.badField])
    }

    @Test("Retry-After in seconds is honoured, and capped by the configuration")
    func retryAfterSeconds() throws {
        var configuration = SchedulerConfiguration()
        configuration.maxRetryAfterNanos = 60 * second
        // More digits than 64 bits hold still mean the longest wait, not none.
        for (header, wait) in [("20", 20 * second), (" 3600 ", 60 * second), ("0", 0), ("99999999999999999999", 60 * second), ("9223372036854775807", 60 * second)] {
            var h = Harness(configuration: configuration)
            let (_, effects) = h.submitted(spec())
            let start = h.now.instant
            let after = h.answer(try #require(effects.sends.first), status: 503, headers: [HTTPHeader(name: "Retry-After", value: header)])
            let following = h.nextSend(after: after)
            let next = try #require(following)
            #expect(next.attempt == 2)
            // The wait is the larger of the jittered backoff (at most 1 s here) and Retry-After.
            #expect(h.now.instant.nanoseconds(since: start) >= wait)
            #expect(h.now.instant.nanoseconds(since: start) <= max(wait, 1 * second))
        }
    }

    @Test("a reload's request.max_retry_after caps the Retry-After of jobs registered before it")
    func retryAfterCapReloads() throws {
        var h = Harness()
        let (_, effects) = h.submitted(spec())
        var configuration = h.scheduler.configuration
        configuration.maxRetryAfterNanos = 60 * second
        _ = h.handle(.reconfigure(configuration))
        let start = h.now.instant
        let after = h.answer(try #require(effects.sends.first), status: 429, headers: [HTTPHeader(name: "Retry-After", value: "3600")])
        let following = h.nextSend(after: after)
        _ = try #require(following)
        #expect(h.now.instant.nanoseconds(since: start) <= 60 * second, "capped at the reloaded minute, not the 10 minutes of registration")
        #expect(h.now.instant.nanoseconds(since: start) >= 60 * second)
    }

    @Test("Retry-After as an HTTP date is honoured")
    func retryAfterDate() throws {
        var h = Harness()
        let (_, effects) = h.submitted(spec())
        let start = h.now.instant
        // The harness's wall clock starts at 1,800,000,000 s: 2027-01-15T08:00:00Z.
        let after = h.answer(
            try #require(effects.sends.first), status: 429,
            headers: [HTTPHeader(name: "retry-after", value: "Fri, 15 Jan 2027 08:00:30 GMT")])
        #expect(h.nextSend(after: after) != nil)
        #expect(h.now.instant.nanoseconds(since: start) == 30 * second)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.nanosecondsSinceEpoch == 784_111_777 * second)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
    }

    @Test("a Retry-After date past 2262, before 1970 or of a year with many digits never overflows: the wait is capped, none, or not a date")
    func retryAfterDateBounds() {
        let now = ClockReading(instant: Instant(nanoseconds: 0), wall: WallTime(nanosecondsSinceEpoch: 1_800_000_000 * second))
        let cap = 600 * second
        func wait(_ date: String) -> Int64? {
            HTTPAnswer(status: 429, headers: [HTTPHeader(name: "Retry-After", value: date)]).retryAfterNanos(at: now, cap: cap)
        }
        #expect(wait("Mon, 01 Jan 2263 00:00:00 GMT") == cap)
        #expect(wait("Fri, 31 Dec 9999 23:59:59 GMT") == cap)
        #expect(wait("Mon, 01 Jan 1000 00:00:00 GMT") == 0)
        #expect(wait("Mon, 01 Jan 0001 00:00:00 GMT") == 0)
        #expect(wait("Mon, 01 Jan 99999999999999999 00:00:00 GMT") == nil)
        #expect(wait("Mon, 01 Jan 10000 00:00:00 GMT") == nil)
    }

    @Test("every attempt carries the same Idempotency-Key, the job id, also after a restart; a caller's own is kept")
    func idempotencyKey() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(maxAttempts: 5))
        let first = try #require(effects.sends.first)
        let key = first.request.headers.first { $0.name == "Idempotency-Key" }?.value
        #expect(key == reply.job.id)
        let failed = h.answer(first, status: 500, headers: [])
        let following = h.nextSend(after: failed)
        let second = try #require(following)
        #expect(second.request.headers.filter { $0.name == "Idempotency-Key" }.map(\.value) == [reply.job.id])

        // The row holds the header as it is sent, as rows always have (an earlier reqd reading it
        // sends it too); the job in memory does not keep it, before or after a restart.
        let row = try #require(h.storedRecords.first { $0.id == reply.job.id })
        #expect(row.detail.request?.settings.request.headers.filter { $0.name == "Idempotency-Key" }.map(\.value) == [reply.job.id])
        #expect(h.scheduler.job(JobID(reply.job.id))?.delivery?.request.headers.isEmpty == true)
        var (restarted, _) = h.restarted()
        #expect(restarted.scheduler.job(JobID(reply.job.id))?.delivery?.request.headers.isEmpty == true)
        let fired = restarted.fireAtArmedDeadline()
        let resent = try #require(fired.sends.first)
        #expect(resent.request.headers.filter { $0.name == "Idempotency-Key" }.map(\.value) == [reply.job.id])

        var own = Harness()
        let mine = own.submitted(spec(headers: ["idempotency-key: order-42"])).effects.sends.first
        #expect(mine?.request.headers.filter { $0.name.lowercased() == "idempotency-key" }.map(\.value) == ["order-42"])
    }

    @Test("a dead job whose last attempt got no answer shows none: not an earlier attempt's answer, in its result, its event, its last status; a retry clears it too")
    func deadShowsTheLastAttempt() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(maxAttempts: 2))
        let id = JobID(reply.job.id)
        let first = try #require(effects.sends.first)
        let after = h.answer(first, status: 503, headers: [])
        #expect(h.scheduler.job(id)?.result?.status == 503)
        let resent = h.nextSend(after: after)
        let second = try #require(resent)
        let ended = h.handle(.httpFinished(id, attempt: second.attempt, .failure("no answer within 30s")))
        #expect(h.scheduler.job(id)?.state == .dead)
        #expect(h.scheduler.job(id)?.result == nil)
        #expect(h.scheduler.job(id)?.delivery?.lastStatus == nil)
        #expect(ended.events(.dead).first?.status == nil)
        #expect(ended.events(.dead).first?.error?.contains("no answer within 30s") == true)

        var answered = Harness()
        let (other, sent) = answered.submitted(spec(maxAttempts: 1))
        _ = answered.answer(try #require(sent.sends.first), status: 404, headers: [])
        #expect(answered.scheduler.job(JobID(other.job.id))?.result?.status == 404)
        _ = answered.request(.retry(RetryRequest(job: other.job.id)))
        #expect(answered.scheduler.job(JobID(other.job.id))?.state == .active)
        #expect(answered.scheduler.job(JobID(other.job.id))?.result == nil, "an active job has no answer that ended it")
    }

    @Test("a reload of request.dead_retention moves the dead letters already kept: shorter, they go at their end plus the new retention; longer, they stay")
    func deadRetentionReloads() throws {
        for (newRetention, goneAfter) in [(3_600 * second, 3_600 * second), (14 * 86_400 * second, 14 * 86_400 * second)] {
            var h = Harness()
            let (reply, effects) = h.submitted(spec(maxAttempts: 1))
            let id = JobID(reply.job.id)
            _ = h.handle(.httpFinished(id, attempt: try #require(effects.sends.first).attempt, .failure("connection refused")))
            #expect(h.scheduler.job(id)?.state == .dead)
            let diedAt = h.now.instant
            h.advance(60 * second)
            var configuration = h.scheduler.configuration
            configuration.deadRetentionNanos = newRetention
            _ = h.handle(.reconfigure(configuration))
            #expect(h.armed == diedAt.advanced(by: goneAfter))
            _ = h.fireAtArmedDeadline()
            #expect(h.scheduler.job(id) == nil)
        }
    }

    @Test("a job whose attempts run out is dead: listed, kept for dead_retention through the timer, then gone")
    func deadLetters() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(maxAttempts: 1))
        let id = JobID(reply.job.id)
        let ended = h.handle(.httpFinished(id, attempt: try #require(effects.sends.first).attempt, .failure("connection refused")))
        #expect(ended.events(.dead).first?.error == "connection refused")
        guard case .success(.jobs(let listed))? = h.request(.list(ListRequest(state: .dead))).replies.first?.result else {
            throw TestFailure("list failed")
        }
        #expect(listed.jobs.map(\.id) == [reply.job.id])
        #expect(h.armed == h.now.instant.advanced(by: h.scheduler.configuration.deadRetentionNanos))
        // Ordinary retention (1 h) does not drop it.
        h.advance(2 * 3_600 * second)
        _ = h.request(.list(ListRequest()))
        #expect(h.scheduler.job(id)?.state == .dead)
        let purged = h.fireAtArmedDeadline()
        #expect(h.scheduler.job(id) == nil)
        #expect(purged.contains { if case .persist(.delete(let gone)) = $0 { gone == id.rawValue } else { false } })
    }

    @Test("retry of a job whose key another active job holds is bad_field naming the holder, and changes nothing; once that one is cancelled, it retries")
    func retryWhileKeyHeld() throws {
        var h = Harness()
        var keyed = spec(maxAttempts: 1)
        keyed.key = "k"
        let (first, effects) = h.submitted(keyed)
        _ = h.answer(try #require(effects.sends.first), status: 503, headers: [])
        let id = JobID(first.job.id)
        #expect(h.scheduler.job(id)?.state == .dead)
        let (holder, _) = h.submitted(keyed)
        let refused = h.request(.retry(RetryRequest(job: id.rawValue)))
        #expect(refused.errorCodes == [.badField])
        #expect(refused.replies.first.flatMap { try? $0.result.get() } == nil)
        if case .failure(let error)? = refused.replies.first?.result {
            #expect(error.message.contains(holder.job.id) && error.message.contains("'k'"), "\(error.message)")
        }
        #expect(refused.sends.isEmpty && h.scheduler.job(id)?.state == .dead)
        _ = h.request(.cancel(JobSelector(job: holder.job.id)))
        #expect(h.request(.retry(RetryRequest(job: id.rawValue))).sends.map(\.job) == [id])
    }

    @Test("retry puts a dead job back with fresh attempts and the same id, acknowledged after commit")
    func retry() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(maxAttempts: 2))
        let id = JobID(reply.job.id)
        var send = try #require(effects.sends.first)
        let failed = h.answer(send, status: 503, headers: [])
        let following = h.nextSend(after: failed)
        send = try #require(following)
        _ = h.answer(send, status: 503, headers: [])
        #expect(h.scheduler.job(id)?.state == .dead)
        h.autoCommit = false
        let retried = h.request(.retry(RetryRequest(job: id.rawValue)))
        #expect(retried.replies.isEmpty, "a durable retry is acknowledged after its commit")
        #expect(retried.sends.map(\.job) == [id])
        #expect(h.scheduler.job(id)?.delivery?.attempts == 1)
        #expect(h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil)).replies.count == 1)
        h.autoCommit = true
        _ = h.answer(try #require(retried.sends.first), status: 200, headers: [])
        #expect(h.scheduler.job(id)?.state == .succeeded)
        #expect(h.scheduler.activeJobCount == 0)
        #expect(h.request(.retry(RetryRequest(job: id.rawValue))).errorCodes == [.badField])
        #expect(h.request(.retry(RetryRequest(job: "rq_nosuchjob0"))).errorCodes == [.unknownJob])
    }

    @Test("delete forgets an ended or dead job at once, from the store too, acknowledged after commit; an active one is refused")
    func delete() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(maxAttempts: 1))
        let id = JobID(reply.job.id)
        _ = h.handle(.httpFinished(id, attempt: try #require(effects.sends.first).attempt, .failure("connection refused")))
        #expect(h.scheduler.job(id)?.state == .dead)
        let (active, _) = h.submitted(spec(url: "https://api.example/other"))
        #expect(h.request(.delete(DeleteRequest(job: active.job.id))).errorCodes == [.badField])
        #expect(h.scheduler.job(JobID(active.job.id))?.state == .active)

        h.autoCommit = false
        let deleted = h.request(.delete(DeleteRequest(job: id.rawValue)))
        #expect(deleted.replies.isEmpty, "a durable delete is acknowledged after its commit")
        #expect(deleted.contains { if case .persist(.delete(let gone)) = $0 { gone == id.rawValue } else { false } })
        #expect(h.scheduler.job(id) == nil)
        let acknowledged = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        guard case .success(.job(let last))? = acknowledged.replies.first?.result else { throw TestFailure("no reply") }
        #expect(last.job.state == .dead)
        h.autoCommit = true
        #expect(h.request(.status(StatusRequest(job: id.rawValue))).errorCodes == [.unknownJob])
        #expect(h.request(.delete(DeleteRequest(job: id.rawValue))).errorCodes == [.unknownJob])

        // An ordinary ended job leaves its retention entry behind, stale: it counts against no one,
        // and goes as soon as it is the oldest, not after jobs.retention.
        let cancelled = h.request(.cancel(JobSelector(job: active.job.id)))
        #expect(cancelled.errorCodes.isEmpty)
        let staleBefore = h.scheduler.table.staleRetainedCount
        _ = h.request(.delete(DeleteRequest(job: active.job.id)))
        #expect(h.scheduler.job(JobID(active.job.id)) == nil)
        #expect(h.scheduler.table.staleRetainedCount <= staleBefore + 1)
        _ = h.request(.list(ListRequest()))
        #expect(h.scheduler.table.staleRetainedCount == 0, "the stale entry, the oldest, went in the next turn")
        h.advance(2 * 3_600 * second)
        _ = h.request(.list(ListRequest()))
        #expect(h.scheduler.table.retained.isEmpty && h.scheduler.table.staleRetainedCount == 0)
    }

    @Test("on_success and on_failure report the outcome as request jobs of their own")
    func reports() throws {
        var h = Harness()
        let hooks = (RequestSpec(url: "https://hooks.example/ok"), RequestSpec(method: "PUT", url: "https://hooks.example/bad"))
        let (_, okEffects) = h.submitted(spec(onSuccess: hooks.0, onFailure: hooks.1))
        let ok = h.answer(try #require(okEffects.sends.first), status: 201, headers: [])
        let report = try #require(ok.sends.first)
        #expect(report.request.method == "POST")
        #expect(report.request.url == "https://hooks.example/ok")
        guard case .object(let body)? = report.request.body.flatMap({ JSONValue(json: $0) }) else { throw TestFailure("no JSON body") }
        #expect(body["state"] == .string("succeeded"))
        #expect(body["status"] == .number(201))

        let (_, badEffects) = h.submitted(spec(url: "https://api.example/other", onSuccess: hooks.0, onFailure: hooks.1))
        let bad = h.answer(try #require(badEffects.sends.first), status: 404, headers: [])
        #expect(bad.sends.map(\.request.url) == ["https://hooks.example/bad"])
        #expect(bad.sends.first?.request.method == "PUT")
    }
}
