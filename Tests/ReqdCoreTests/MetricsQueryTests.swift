import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("The metrics operation: gauges, the jobs due soonest, failing targets")
struct MetricsQueryTests {
    private static func metrics(_ h: inout Harness, soonest: Int? = nil, connection: UInt64 = 1) -> Result<ReplyBody, SchedulerError>? {
        h.request(.metrics(MetricsRequest(soonest: soonest)), connection: connection).replies.first?.result
    }

    private static func result(_ h: inout Harness, soonest: Int? = nil, connection: UInt64 = 1) throws -> MetricsResult {
        guard case .success(.metrics(let result)) = metrics(&h, soonest: soonest, connection: connection) else {
            throw TestFailure("metrics was refused")
        }
        return result
    }

    /// A countdown whose only timer is its expiry (its tick is as long as it is).
    private static func countdown(_ h: inout Harness, key: String, seconds: Int64, connection: UInt64) {
        _ = h.countdown(key: key, seconds: seconds, tickMs: seconds * 1000, connection: connection)
    }

    /// Fires the timer until the scheduler starts a request.
    private static func nextSend(_ h: inout Harness) -> HTTPSend? {
        for _ in 0..<10 {
            if let send = h.fireAtArmedDeadline().sends.first { return send }
        }
        return nil
    }

    @Test("soonest lists the caller's jobs by their next deadline, root sees everyone's, and the count is bounded")
    func soonest() throws {
        var h = Harness()
        Self.countdown(&h, key: "late", seconds: 300, connection: 1)
        Self.countdown(&h, key: "other", seconds: 5, connection: 2)
        Self.countdown(&h, key: "early", seconds: 10, connection: 1)
        Self.countdown(&h, key: "middle", seconds: 60, connection: 1)

        let mine = try Self.result(&h, soonest: 2)
        #expect(mine.soonest.map(\.job.key) == ["early", "middle"])
        #expect(mine.soonest.map(\.dueInMs) == [10_000, 60_000])
        #expect(mine.soonest.first?.dueAt == h.now.wall(at: h.now.instant.advanced(by: 10 * Harness.second)))

        let everyone = try Self.result(&h, connection: 3)
        #expect(everyone.soonest.map(\.job.key) == ["other", "early", "middle", "late"])
        #expect(everyone.jobs["countdown"]?["active"] == 4)
        #expect(everyone.connections == 3)
        // The gauges are the daemon's, whoever asks.
        #expect(mine.jobs == everyone.jobs)

        #expect(try Self.result(&h, soonest: 0).soonest.isEmpty)
        guard case .failure(let error) = Self.metrics(&h, soonest: 101) else {
            Issue.record("soonest 101 was accepted")
            return
        }
        #expect(error.code == .badField)
    }

    @Test("a target answering 503 or failing to connect is listed as failing to its users only, and a good answer clears it")
    func failingTargets() throws {
        var h = Harness()
        let failing = h.submitted(submitSpec(url: "https://busy.example/a", maxAttempts: 5)).effects.sends[0]
        let healthy = h.submitted(submitSpec(url: "https://fine.example/b", maxAttempts: 5)).effects.sends[0]
        _ = h.handle(.httpFinished(failing.job, attempt: failing.attempt, .response(HTTPAnswer(status: 503))))
        _ = h.handle(.httpFinished(healthy.job, attempt: healthy.attempt, .response(HTTPAnswer(status: 200))))

        var targets = try Self.result(&h).targets
        #expect(targets.map(\.target) == ["https://busy.example"])
        #expect(targets.first?.state == .failing)
        #expect(targets.first?.failures == 1)
        #expect(targets.first?.lastStatus == 503)
        #expect(try Self.result(&h, connection: 2).targets.isEmpty, "another user does not see the targets of uid 1000's jobs")
        #expect(try Self.result(&h, connection: 3).targets.count == 1, "root does")

        // The retry fails to connect: two failures in a row, the error kept.
        let retry = try #require(Self.nextSend(&h))
        _ = h.handle(.httpFinished(retry.job, attempt: retry.attempt, .failure("connection refused")))
        targets = try Self.result(&h).targets
        #expect(targets.first?.failures == 2)
        #expect(targets.first?.lastStatus == nil)
        #expect(targets.first?.error == "connection refused")

        let third = try #require(Self.nextSend(&h))
        _ = h.handle(.httpFinished(third.job, attempt: third.attempt, .response(HTTPAnswer(status: 200))))
        #expect(try Self.result(&h).targets.isEmpty)
    }

    @Test("an unreachable target is listed with the caller's held jobs, and counted in the gauges")
    func unreachableTargets() throws {
        var h = Harness()
        let send = h.submitted(submitSpec(url: "https://gone.example/x")).effects.sends[0]
        _ = h.unreachable(send)
        let result = try Self.result(&h)
        #expect(result.heldJobs == 1)
        #expect(result.unreachableTargets == 1)
        #expect(result.targets.map(\.state) == [.unreachable])
        #expect(result.targets.first?.heldJobs == 1)
        #expect(try Self.result(&h, connection: 2).targets.isEmpty)
    }

    @Test("a request left unanswered past the timeout counts for the counters and the target's health; a group member's retry is counted")
    func timeoutsAndGroupRetries() throws {
        var configuration = SchedulerConfiguration()
        configuration.requestTimeoutNanos = 5 * Harness.second
        var h = Harness(configuration: configuration)
        _ = h.submitted(submitSpec(url: "https://slow.example/a", maxAttempts: 3, follow: false))
        var timedOut: [SchedulerEffect] = []
        for _ in 0..<10 where timedOut.aborts.isEmpty { timedOut = h.fireAtArmedDeadline() }
        #expect(timedOut.contains { if case .requestTimedOut(5 * Harness.second) = $0 { true } else { false } })
        #expect(timedOut.aborts.count == 1)
        #expect(timedOut.contains { if case .counted(.retrying, .request) = $0 { true } else { false } }, "nobody watches: counted")
        let target = try #require(try Self.result(&h).targets.first)
        #expect(target.target == "https://slow.example")
        #expect(target.error == "no answer within the request timeout")

        let member = RequestSpec(method: "GET", url: "https://members.example/m", maxAttempts: 2, backoffMinMs: 1_000)
        let effects = h.request(.registerGroup(GroupSpec(members: [member])), connection: 1)
        let send = try #require(effects.sends.first)
        let answered = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503))))
        #expect(answered.contains { if case .counted(.retrying, .group) = $0 { true } else { false } })
        #expect(try Self.result(&h).targets.contains { $0.target == "https://members.example" && $0.lastStatus == 503 })
    }

    @Test("the heap's smallest walk returns the accepted entries in order and leaves the heap as it was")
    func smallestWalk() {
        var heap = IndexedMinHeap<TimerKey, Instant>()
        var random = RandomSource(seed: 7)
        var priorities: [JobID: Int64] = [:]
        for index in 0..<2_000 {
            let id = JobID("cd_\(index)")
            let priority = Int64(random.unit() * 1_000_000)
            priorities[id] = priority
            heap.set(.job(id), priority: Instant(nanoseconds: priority))
        }
        let even: (TimerKey) -> Bool = { key in
            guard case .job(let id) = key else { return false }
            return (priorities[id] ?? 0) % 2 == 0
        }
        let walked = heap.smallest(25, examining: .max, where: even).map(\.priority.nanoseconds)
        let expected = priorities.values.filter { $0 % 2 == 0 }.sorted().prefix(25)
        #expect(walked == Array(expected))
        #expect(heap.isValid())
        #expect(heap.smallest(10, examining: 3, where: { _ in true }).count == 3, "the walk stops at its limit")
        #expect(heap.smallest(0, examining: .max, where: { _ in true }).isEmpty)
    }
}
