import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("Per-user limits on the injected clock: active jobs, requests in flight, retained jobs")
struct LimitsTests {
    private static func limited(_ body: (inout UserLimits) -> Void) -> Harness {
        var configuration = SchedulerConfiguration()
        body(&configuration.userLimits)
        return Harness(configuration: configuration)
    }

    private static func order(_ url: String = "https://api.example/orders") -> SubmitSpec {
        SubmitSpec(
            request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: 3, backoffMinMs: 1_000, backoffMaxMs: 1_000),
            dedupeWindowMs: 0)
    }

    private static func error(_ effects: [SchedulerEffect]) -> SchedulerError? {
        guard case .failure(let error)? = effects.replies.first?.result else { return nil }
        return error
    }

    @Test("a uid at limits.active_jobs_per_user is refused quota_exceeded naming the limit; nothing changes, and another uid still registers")
    func activeJobs() throws {
        var h = Self.limited { $0.activeJobs = 3 }
        for index in 0..<3 { _ = h.countdown(key: "k\(index)", seconds: 60, ephemeral: true) }
        let before = h.scheduler.activeJobCount
        let refused = try #require(Self.error(h.request(.registerCountdown(CountdownSpec(key: "k3", durationMs: 60_000, ephemeral: true)))))
        #expect(refused.code == .quotaExceeded)
        #expect(refused.message.contains("limits.active_jobs_per_user is 3"))
        #expect(h.scheduler.activeJobCount == before)
        #expect(Self.error(h.request(.submit(Self.order())))?.code == .quotaExceeded)
        // Replacing a job by its key adds none.
        #expect(Self.error(h.request(.registerCountdown(CountdownSpec(key: "k0", durationMs: 60_000, ephemeral: true)))) == nil)
        // Another user is not affected.
        _ = h.countdown(key: "theirs", seconds: 60, ephemeral: true, connection: 2)
        let summary = try #require(h.summary(uid: 1000)?.limits)
        #expect(summary.activeJobs == LimitUsage(used: 3, limit: 3))
        #expect(h.summary(uid: 1001)?.limits?.activeJobs.used == 1)
    }

    @Test("durable registrations waiting for their commit count against the quota")
    func stagedCount() throws {
        var h = Self.limited { $0.activeJobs = 2 }
        h.autoCommit = false
        _ = h.request(.registerCountdown(CountdownSpec(key: "a", durationMs: 60_000)))
        _ = h.request(.registerCountdown(CountdownSpec(key: "b", durationMs: 60_000)))
        #expect(Self.error(h.request(.registerCountdown(CountdownSpec(key: "c", durationMs: 60_000))))?.code == .quotaExceeded)
        for token in h.pendingBarriers { _ = h.handle(.commitCompleted(token, failure: nil)) }
        #expect(h.summary(uid: 1000)?.limits?.activeJobs.used == 2)
    }

    @Test("root is held to the limits unless limits.apply_to_root is off")
    func root() throws {
        var h = Self.limited { $0.activeJobs = 1 }
        _ = h.countdown(key: "a", seconds: 60, ephemeral: true, connection: 3)
        #expect(Self.error(h.request(.registerCountdown(CountdownSpec(key: "b", durationMs: 60_000, ephemeral: true)), connection: 3))?.code == .quotaExceeded)
        var configuration = SchedulerConfiguration()
        configuration.userLimits.activeJobs = 1
        configuration.userLimits.applyToRoot = false
        _ = h.handle(.reconfigure(configuration))
        #expect(Self.error(h.request(.registerCountdown(CountdownSpec(key: "b", durationMs: 60_000, ephemeral: true)), connection: 3)) == nil)
        #expect(h.summary(uid: 0)?.limits?.applies == false)
    }

    @Test("beyond limits.requests_in_flight_per_user jobs wait their turn, in order, spending no attempt; another uid's requests go at once")
    func requestsInFlight() throws {
        var h = Self.limited { $0.requestsInFlight = 2 }
        var sends: [HTTPSend] = []
        var ids: [JobID] = []
        for _ in 0..<5 {
            let (reply, effects) = h.submitted(Self.order())
            ids.append(JobID(reply.job.id))
            sends += effects.sends
        }
        #expect(sends.map(\.job) == Array(ids.prefix(2)))
        let waiting = try #require(h.scheduler.job(ids[4])?.delivery)
        #expect(waiting.attempts == 0)
        let usage = try #require(h.summary(uid: 1000)?.limits)
        #expect(usage.requestsInFlight == LimitUsage(used: 2, limit: 2))
        #expect(usage.requestsWaiting == 3)
        // Another user is not held back by this one's line.
        #expect(h.submitted(Self.order(), connection: 2).effects.sends.count == 1)
        // A cancelled waiting job gives up its place.
        _ = h.request(.cancel(JobSelector(job: ids[2].rawValue)))
        var started: [JobID] = []
        while let send = sends.first {
            sends.removeFirst()
            let effects = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200))))
            started += effects.sends.map(\.job)
            sends += effects.sends
        }
        #expect(started == [ids[3], ids[4]], "in the order they came to wait")
        for id in [ids[0], ids[1], ids[3], ids[4]] { #expect(h.scheduler.job(id)?.state == .succeeded) }
        #expect(h.summary(uid: 1000)?.limits?.requestsInFlight.used == 0)
    }

    @Test("an aborted request frees its slot once, even when its late answer arrives afterwards")
    func abortFreesOnce() throws {
        var h = Self.limited { $0.requestsInFlight = 1 }
        let first = h.submitted(Self.order())
        let second = h.submitted(Self.order())
        let third = h.submitted(Self.order())
        #expect(second.effects.sends.isEmpty && third.effects.sends.isEmpty)
        let cancelled = h.request(.cancel(JobSelector(job: first.reply.job.id)))
        #expect(cancelled.sends.map(\.job.rawValue) == [second.reply.job.id])
        let send = try #require(first.effects.sends.first)
        let late = h.handle(.httpFinished(send.job, attempt: send.attempt, .failure("cancelled")))
        #expect(late.sends.isEmpty, "the late answer of the aborted request frees nothing")
        #expect(h.summary(uid: 1000)?.limits?.requestsInFlight.used == 1)
    }

    @Test("beyond limits.retained_jobs_per_user a user's oldest ended jobs are forgotten; another user's stay")
    func retained() throws {
        var h = Self.limited { $0.retainedJobs = 2 }
        let theirs = h.countdown(key: "theirs", seconds: 1, ephemeral: true, connection: 2).id
        let mine = (0..<5).map { h.countdown(key: "k\($0)", seconds: Int64(2 + $0), ephemeral: true).id }
        for _ in 0..<6 { _ = h.fireAtArmedDeadline() }
        h.advance(second)
        _ = h.handle(.timerFired)
        #expect(mine.map { h.scheduler.job($0) != nil } == [false, false, false, true, true])
        #expect(h.scheduler.job(theirs)?.state == .expired)
        #expect(h.summary(uid: 1000)?.limits?.retainedJobs == LimitUsage(used: 2, limit: 2))
    }

    @Test("dead letters are capped apart from other ended jobs: past limits.retained_jobs_per_user of one user's, or jobs.max_retained in all, the first created goes; other ended jobs stay")
    func deadLettersCapped() throws {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.retainedJobs = 3
        configuration.maxRetainedJobs = 5
        var h = Harness(configuration: configuration)
        let expired = h.countdown(key: "ended", seconds: 1, ephemeral: true).id
        _ = h.fireAtArmedDeadline()
        func dead(_ index: Int, connection: UInt64 = 1) -> JobID { Self.dead(&h, index, connection: connection) }
        let mine = (0..<5).map { dead($0) }
        #expect(mine.map { h.scheduler.job($0)?.state } == [nil, nil, .dead, .dead, .dead], "a user keeps 3")
        #expect(h.scheduler.job(expired)?.state == .expired, "the user's other ended job is not one of them")
        // Another user's three make 6 in all, past jobs.max_retained: the first created goes.
        let theirs = (5..<8).map { dead($0, connection: 2) }
        #expect(h.scheduler.table.deadLetters == 5)
        #expect(mine.map { h.scheduler.job($0)?.state } == [nil, nil, nil, .dead, .dead])
        #expect(theirs.allSatisfy { h.scheduler.job($0)?.state == .dead })
    }

    /// Submits a request that fails at once (one attempt, a 500), so that it dies; 1 ms passes.
    private static func dead(_ h: inout Harness, _ index: Int, connection: UInt64 = 1) -> JobID {
        let spec = SubmitSpec(
            request: RequestSpec(method: "POST", url: "https://api.example/fails/\(index)", body: "{}", maxAttempts: 1), dedupeWindowMs: 0)
        let submitted = h.submitted(spec, connection: connection)
        let send = submitted.effects.sends[0]
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 500))))
        h.advance(1_000_000)
        return JobID(submitted.reply.job.id)
    }

    @Test("the dead letter that just died stays, though it was created first: the cap forgets the next")
    func justDiedStays() throws {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.retainedJobs = 2
        var h = Harness(configuration: configuration)
        let spec = SubmitSpec(
            request: RequestSpec(method: "POST", url: "https://api.example/slow", body: "{}", maxAttempts: 2, backoffMinMs: 1_000, backoffMaxMs: 1_000),
            dedupeWindowMs: 0)
        let long = h.submitted(spec)
        let first = long.effects.sends[0]
        _ = h.handle(.httpFinished(first.job, attempt: first.attempt, .response(HTTPAnswer(status: 500))))
        let others = (0..<2).map { Self.dead(&h, $0) }
        let retry = try #require(h.fireAtArmedDeadline().sends.first)
        _ = h.handle(.httpFinished(retry.job, attempt: retry.attempt, .response(HTTPAnswer(status: 500))))
        #expect(h.scheduler.job(JobID(long.reply.job.id))?.state == .dead)
        #expect(others.map { h.scheduler.job($0)?.state } == [nil, .dead])
    }

    @Test("a user at limits.retained_jobs_per_user keeps the retention list at its limit: each forgotten job's entry goes in the next turn, not after jobs.retention")
    func forgottenEntriesGo() throws {
        var h = Self.limited { $0.retainedJobs = 50 }
        for round in 0..<40 {
            for index in 0..<50 { _ = h.countdown(key: "k\(round)-\(index)", seconds: 1, ephemeral: true) }
            _ = h.fireAtArmedDeadline()
            _ = h.handle(.timerFired)
        }
        _ = h.handle(.timerFired)
        #expect(h.summary(uid: 1000)?.limits?.retainedJobs == LimitUsage(used: 50, limit: 50))
        // 2,000 ended, 1,950 forgotten within the hour of jobs.retention: none of their entries stays.
        #expect(h.scheduler.table.retained.count <= 100, "\(h.scheduler.table.retained.count) entries for 50 jobs")
        #expect(h.scheduler.table.staleRetainedCount <= 50)
    }

    @Test("a group waiting for a slot still times out its members on the wire, which frees their slots")
    func waitingGroupKeepsTimeouts() throws {
        var h = Self.limited { $0.requestsInFlight = 2 }
        let members = (0..<4).map { RequestSpec(method: "GET", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 2))
        #expect(registered.sends.count == 2)
        // A request of the same user takes no slot (both are in use): the group's next member,
        // after one answer, must wait too.
        let first = try #require(registered.sends.first)
        _ = h.submitted(Self.order())
        let answered = h.answer(first, status: 200)
        #expect(answered.sends.count == 1, "the freed slot goes to the request that waited first")
        #expect(h.summary(uid: 1000)?.limits?.requestsWaiting == 1)
        // The member still out times out on the timer, though the group waits.
        let timedOut = h.fireAtArmedDeadline()
        #expect(timedOut.aborts.contains { $0.0 == group })
        #expect(h.now.instant.nanoseconds(since: Harness().now.instant) <= SchedulerConfiguration().requestTimeoutNanos + second)
    }

    @Test("a probe of an unreachable target goes even when its owner has every slot in use")
    func probeIgnoresSlots() throws {
        var h = Self.limited { $0.requestsInFlight = 1 }
        let down = "http://10.77.0.1:8080/orders"
        let held = h.submitted(Self.order(down))
        _ = h.unreachable(try #require(held.effects.sends.first))
        let busy = h.submitted(Self.order())
        #expect(busy.effects.sends.count == 1, "the one slot is in use")
        let probe = h.handle(.networkChanged)
        #expect(probe.sends.map(\.job.rawValue) == [held.reply.job.id])
    }

    @Test("lowering limits.retained_jobs_per_user by reload forgets the excess at once; a retried job counts from its last end")
    func retainedReloadAndRetry() throws {
        var h = Harness()
        let ids = (0..<4).map { h.countdown(key: "k\($0)", seconds: Int64(1 + $0), ephemeral: true).id }
        for _ in 0..<4 { _ = h.fireAtArmedDeadline() }
        #expect(h.summary(uid: 1000)?.limits?.retainedJobs.used == 4)
        var configuration = SchedulerConfiguration()
        configuration.userLimits.retainedJobs = 2
        _ = h.handle(.reconfigure(configuration))
        #expect(ids.map { h.scheduler.job($0) != nil } == [false, false, true, true])
    }

    @Test("a request job retried and ended again is kept by its last end, not its first")
    func retriedKeepsItsLastEnd() throws {
        var h = Self.limited { $0.retainedJobs = 2 }
        let failing = SubmitSpec(
            request: RequestSpec(method: "POST", url: "https://api.example/a", body: "{}", maxAttempts: 1), dedupeWindowMs: 0)
        let (retried, sent) = h.submitted(failing)
        _ = h.handle(.httpFinished(try #require(sent.sends.first).job, attempt: 1, .response(HTTPAnswer(status: 400))))
        #expect(h.scheduler.job(JobID(retried.job.id))?.state == .failed)
        h.advance(second)
        let x = h.countdown(key: "x", seconds: 1, ephemeral: true).id
        _ = h.fireAtArmedDeadline()
        h.advance(second)
        let again = h.request(.retry(RetryRequest(job: retried.job.id)))
        _ = h.handle(.httpFinished(try #require(again.sends.first).job, attempt: 1, .response(HTTPAnswer(status: 200))))
        h.advance(second)
        _ = h.countdown(key: "y", seconds: 1, ephemeral: true)
        _ = h.fireAtArmedDeadline()
        // Three ended, two kept: the oldest by last end (x) goes; the retried job's first end does not count.
        #expect(h.scheduler.job(JobID(retried.job.id))?.state == .succeeded)
        #expect(h.scheduler.job(x) == nil)
        #expect(h.summary(uid: 1000)?.limits?.retainedJobs.used == 2)
    }
}
