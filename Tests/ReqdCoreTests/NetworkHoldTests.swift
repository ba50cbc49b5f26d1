import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

private func spec(_ url: String, maxAttempts: Int = 3, follow: Bool = true) -> SubmitSpec {
    SubmitSpec(
        request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: maxAttempts, backoffMinMs: 100, backoffMaxMs: 100),
        dedupeWindowMs: 0, follow: follow)
}

private let down = "http://10.77.0.1:8080/orders"

extension Harness {
    /// Ends an attempt because the network cannot reach its target.
    mutating func unreachable(_ send: HTTPSend) -> [SchedulerEffect] {
        handle(.httpFinished(send.job, attempt: send.attempt, .unreachable("could not connect: Network is unreachable")))
    }

    /// The daemon summary as root (or `uid`) sees it.
    func summary(uid: UInt32 = 0) -> DaemonSummary? {
        guard case .success(.summary(let summary)) = scheduler.status(StatusRequest(), peer: Peer(uid: uid, pid: 1), at: now)
        else { return nil }
        return summary
    }

    /// A job's request view.
    func requestInfo(_ id: String) -> RequestInfo? {
        scheduler.job(JobID(id)).flatMap { JobInfo($0, at: now).request }
    }

    /// Submits `count` jobs to `url` whose first attempts find the network unreachable; returns their ids.
    mutating func heldJobs(_ count: Int, url: String = down, connection: UInt64 = 1) -> [String] {
        (0..<count).map { _ in
            let (reply, effects) = submitted(spec(url), connection: connection)
            if let send = effects.sends.first { _ = unreachable(send) }
            return reply.job.id
        }
    }

    /// The notices among effects.
    static func notices(_ effects: [SchedulerEffect]) -> [String] {
        effects.compactMap { if case .notice(let text) = $0 { return text } else { return nil } }
    }
}

@Suite("Network outages hold the retry queue on the injected clock")
struct NetworkHoldTests {
    @Test("an unreachable attempt gives its attempt back, holds the job, and the summary says offline")
    func holdsWithoutSpendingAttempts() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(down))
        let after = h.unreachable(try #require(effects.sends.first))
        #expect(after.events(.held).map(\.job) == [reply.job.id])
        #expect(after.events(.retrying).isEmpty)
        #expect(Harness.notices(after).count == 1)
        let info = try #require(h.requestInfo(reply.job.id))
        #expect(info.attempts == 0)
        #expect(info.held == true)
        #expect(info.nextAttemptAt == nil)
        #expect(info.lastError?.contains("unreachable") == true)
        let summary = try #require(h.summary())
        #expect(summary.network.state == .offline)
        #expect(summary.network.heldJobs == 1)
        #expect(summary.network.unreachableTargets == 1)
        #expect(summary.network.offlineSince == h.now.wall)
        // Another user sees the daemon offline but none of this user's held jobs.
        #expect(h.summary(uid: 1001)?.network.heldJobs == 0)
    }

    @Test("each user's held count follows holds, the probe going out and coming back held, a cancel and the release")
    func heldCountsPerOwner() throws {
        var h = Harness()
        let mine = h.heldJobs(5)
        _ = h.heldJobs(3, url: "http://10.77.0.2:8080/", connection: 2)
        func counts() -> [Int?] { [0, 1000, 1001, 4242].map { h.summary(uid: $0)?.network.heldJobs } }
        #expect(counts() == [8, 5, 3, 0])
        let round = h.handle(.networkChanged)
        #expect(round.sends.count == 2)
        #expect(counts() == [8, 5, 3, 0])
        let mineProbe = try #require(round.sends.first { $0.job == JobID(mine[0]) })
        _ = h.unreachable(mineProbe)
        #expect(counts() == [8, 5, 3, 0])
        _ = h.request(.cancel(JobSelector(job: mine[1])))
        #expect(counts() == [7, 4, 3, 0])
        let otherProbe = try #require(round.sends.first { $0.job != JobID(mine[0]) })
        _ = h.handle(.httpFinished(otherProbe.job, attempt: otherProbe.attempt, .response(HTTPAnswer(status: 200))))
        #expect(counts() == [4, 4, 0, 0])
        #expect(h.scheduler.heldJobCount == 4)
    }

    @Test("while the target stays unreachable, probes come one at a time with a doubling wait capped at probe_max, and no attempt is spent")
    func probesBackOff() throws {
        var configuration = SchedulerConfiguration()
        configuration.probeMaxNanos = 8 * second
        var h = Harness(configuration: configuration)
        let ids = h.heldJobs(5)
        var gaps: [Int64] = []
        var last = h.now.instant
        for _ in 0..<8 {
            let fired = h.fireAtArmedDeadline()
            gaps.append(h.now.instant.nanoseconds(since: last))
            last = h.now.instant
            #expect(fired.sends.count == 1)
            _ = h.unreachable(try #require(fired.sends.first))
        }
        #expect(gaps == [1, 2, 4, 8, 8, 8, 8, 8].map { $0 * second })
        for id in ids {
            #expect(h.requestInfo(id)?.attempts == 0)
            #expect(h.scheduler.job(JobID(id))?.state == .active)
        }
        #expect(h.summary()?.network.heldJobs == 5)
    }

    @Test("a network change probes at once; the first answer releases the rest in the order held, 50 a second (request.catchup_rate)")
    func resumesPaced() throws {
        var h = Harness()
        let ids = h.heldJobs(40)
        h.advance(5 * second)
        #expect(h.summary()?.network.state == .offline)
        let changed = h.handle(.networkChanged)
        let probe = try #require(changed.sends.first)
        #expect(changed.sends.count == 1)
        #expect(probe.job == JobID(ids[0]))
        #expect(probe.attempt == 1)
        let back = h.handle(.httpFinished(probe.job, attempt: probe.attempt, .response(HTTPAnswer(status: 200))))
        #expect(Harness.notices(back).contains { $0.contains("resuming 39 held request jobs over 760ms") })
        #expect(h.summary()?.network.state == .online)
        let start = h.now.instant
        let sent = h.sendsUntilQuiet()
        #expect(sent.map(\.send.job) == ids.dropFirst().map(JobID.init), "in the order they were held")
        #expect(sent.allSatisfy { $0.send.attempt == 1 })
        #expect(sent.map { $0.at.nanoseconds(since: start) } == (0..<39).map { Int64($0) * 20 * ms })
        for id in ids { #expect(h.scheduler.job(JobID(id))?.state == .succeeded) }
        #expect(h.armed == nil)
    }

    @Test("a probe that finds its target still unreachable keeps its place: the release goes in the order held; offline_since follows the targets still down")
    func failedProbeKeepsItsPlace() throws {
        var h = Harness()
        let ids = h.heldJobs(4)
        let first = try #require(h.handle(.networkChanged).sends.first)
        #expect(first.job == JobID(ids[0]))
        _ = h.unreachable(first)
        let again = try #require(h.handle(.networkChanged).sends.first)
        #expect(again.job == JobID(ids[0]), "the oldest held job is the probe again")
        _ = h.unreachable(again)
        // Another target goes down later; when the first comes back, offline_since is the other's.
        h.advance(10 * second)
        let downAt = h.now.wall
        _ = h.heldJobs(1, url: "http://10.77.0.2:8080/orders")
        let probes = h.handle(.networkChanged).sends
        let probe = try #require(probes.first { $0.job == JobID(ids[0]) })
        _ = h.handle(.httpFinished(probe.job, attempt: probe.attempt, .response(HTTPAnswer(status: 200))))
        for other in probes where other.job != probe.job { _ = h.unreachable(other) }
        #expect(h.summary()?.network.offlineSince == downAt)
        let sent = h.sendsUntilQuiet().map(\.send.job).filter { ids.contains($0.rawValue) }
        #expect(sent == ids.dropFirst().map(JobID.init), "in the order they were held")
    }

    @Test("an overdue on_expire request held behind an outage takes one catch-up slot, in the order it was held")
    func overdueHookHeldOnce() throws {
        var h = Harness()
        let ids = h.heldJobs(2)
        let hook = RequestSpec(method: "POST", url: down, body: "{}", maxAttempts: 3)
        _ = h.request(.registerCountdown(CountdownSpec(key: "hooked", durationMs: 1_000, onExpire: hook)))
        // The machine slept: the expiry comes 3 s late, and its hook is held behind the others.
        h.advance(4 * second)
        let woke = h.handle(.timerFired)
        let probe = try #require(woke.sends.first { $0.job == JobID(ids[0]) })
        let start = h.now.instant
        let back = h.handle(.httpFinished(probe.job, attempt: probe.attempt, .response(HTTPAnswer(status: 200))))
        let sent = h.sendsUntilQuiet(first: back).filter { $0.send.request.url == down }
        #expect(sent.count == 2, "\(sent.map(\.send.job))")
        #expect(sent.first?.send.job == JobID(ids[1]))
        #expect(sent.map { $0.at.nanoseconds(since: start) } == [0, 20 * ms], "the hook goes in its release slot, not a second one")
    }

    @Test("attempts still out to a target found unreachable are aborted and held, and get their attempt back")
    func strandedAttempts() throws {
        var h = Harness()
        let stranded = h.submitted(spec(down))
        let other = h.submitted(spec("http://127.0.0.1:9/other"))
        let failing = h.submitted(spec(down))
        let after = h.unreachable(try #require(failing.effects.sends.first))
        #expect(after.aborts.map(\.0) == [JobID(stranded.reply.job.id)])
        #expect(h.requestInfo(stranded.reply.job.id)?.held == true)
        #expect(h.requestInfo(stranded.reply.job.id)?.attempts == 0)
        #expect(h.requestInfo(other.reply.job.id)?.inFlight == true)
        #expect(h.summary()?.network.heldJobs == 2)
        // Its late end, if the executor reports one, changes nothing.
        _ = h.handle(.httpFinished(JobID(stranded.reply.job.id), attempt: 1, .failure("cancelled")))
        #expect(h.requestInfo(stranded.reply.job.id)?.held == true)
    }

    @Test("a probe answered 503 shows the target is back: the rest resume and the probe spends that attempt")
    func serverErrorStillMeansReachable() throws {
        var h = Harness()
        let ids = h.heldJobs(3)
        let probe = try #require(h.fireAtArmedDeadline().sends.first)
        _ = h.handle(.httpFinished(probe.job, attempt: probe.attempt, .response(HTTPAnswer(status: 503))))
        #expect(h.requestInfo(ids[0])?.attempts == 1)
        #expect(h.requestInfo(ids[1])?.held == nil)
        #expect(h.summary()?.network.state == .online)
    }

    @Test("only the unreachable target is held: other targets go on, and new jobs for it wait without a send")
    func perTarget() throws {
        var h = Harness()
        _ = h.heldJobs(2)
        let other = h.submitted(spec("http://127.0.0.1:9/other"))
        #expect(other.effects.sends.count == 1)
        _ = h.handle(.httpFinished(other.effects.sends[0].job, attempt: 1, .response(HTTPAnswer(status: 200))))
        #expect(h.summary()?.network.heldJobs == 2)
        let late = h.submitted(spec("http://10.77.0.1:8080/other-path"))
        #expect(late.effects.sends.isEmpty)
        #expect(late.reply.job.request?.held == true)
        #expect(h.summary()?.network.heldJobs == 3)
    }

    @Test("cancelling every held job ends the hold and the probe timer")
    func cancelEndsHold() throws {
        var h = Harness()
        let ids = h.heldJobs(2)
        for id in ids { _ = h.request(.cancel(JobSelector(job: id))) }
        #expect(h.summary()?.network.state == .online)
        #expect(h.armed == nil)
    }

    @Test("a held job that already spent attempts keeps them, and after a restart it is tried again with the next one")
    func restartKeepsAttempts() throws {
        var h = Harness()
        let (reply, effects) = h.submitted(spec(down, maxAttempts: 5))
        _ = h.handle(.httpFinished(effects.sends[0].job, attempt: 1, .response(HTTPAnswer(status: 500))))
        let second = try #require(h.fireAtArmedDeadline().sends.first)
        _ = h.unreachable(second)
        #expect(h.requestInfo(reply.job.id)?.attempts == 1)
        var (restarted, _) = h.restarted()
        let resent = try #require(restarted.fireAtArmedDeadline().sends.first)
        #expect(resent.job == JobID(reply.job.id))
        #expect(resent.attempt == 2)
    }

    @Test("group members count an unreachable network as a failed attempt")
    func groupsDoNotHold() throws {
        var h = Harness()
        let effects = h.request(
            .registerGroup(
                GroupSpec(members: [RequestSpec(method: "GET", url: down, maxAttempts: 1)], ephemeral: true)))
        let send = try #require(effects.sends.first)
        let after = h.unreachable(send)
        #expect(after.events(.held).isEmpty)
        #expect(h.scheduler.job(send.job)?.state == .failed)
        #expect(h.summary()?.network.state == .online)
    }
}
