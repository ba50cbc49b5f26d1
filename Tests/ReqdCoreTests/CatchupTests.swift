import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

extension Harness {
    /// Fires the timer until nothing is armed or `limit` fires have passed; returns each send with
    /// the instant it went, answering every one 200 at once.
    mutating func sendsUntilQuiet(limit: Int = 2_000, first: [SchedulerEffect] = []) -> [(send: HTTPSend, at: Instant)] {
        var sent: [(HTTPSend, Instant)] = []
        var effects = first
        for _ in 0..<limit {
            for send in effects.sends {
                sent.append((send, now.instant))
                _ = handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200))))
            }
            guard armed != nil else { break }
            effects = fireAtArmedDeadline()
        }
        return sent
    }
}

@Suite("Overdue HTTP work is spread per target at request.catchup_rate; expiries stay exact")
struct CatchupTests {
    private static func hooked(_ key: String, url: String) -> CountdownSpec {
        CountdownSpec(key: key, durationMs: 5_000, onExpire: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: 3))
    }

    @Test("300 countdowns that expired while the daemon was down all expire at once with late_by; their hooks go 50 a second per target, the first at once")
    func restartSpreadsHooks() throws {
        var h = Harness()
        for index in 0..<300 {
            let url = index % 3 == 2 ? "https://other.example/hook" : "https://hooks.example/done"
            _ = h.request(.registerCountdown(Self.hooked("k\(index)", url: url)))
        }
        var (r, _) = h.restarted(after: 60 * second)
        let restartedAt = r.now.instant
        let fired = r.fireDue()
        let expired = fired.events(.expired)
        #expect(expired.count == 300, "every expiry fires at once")
        #expect(expired.allSatisfy { ($0.lateByMs ?? 0) >= 55_000 })
        let sent = r.sendsUntilQuiet(first: fired)
        #expect(sent.count == 300)
        for host in ["https://hooks.example", "https://other.example"] {
            let times = sent.filter { $0.send.request.url.hasPrefix(host) }.map { $0.at.nanoseconds(since: restartedAt) }
            #expect(times.first == 0, "the first hook to \(host) goes at once")
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps.allSatisfy { $0 == 20 * ms }, "one every 20 ms to \(host)")
        }
        #expect(sent.filter { $0.send.request.url.hasPrefix("https://hooks.example") }.count == 200)
        #expect(sent.last.map { $0.at.nanoseconds(since: restartedAt) } == 199 * 20 * ms)
    }

    @Test("hooks of countdowns that expire on time are not held back, however many expire at once")
    func onTimeIsNotPaced() {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.requestsInFlight = 1_000
        // The target's concurrency (http.max_connections_per_host, 64) holds the rest for slots, not for time.
        configuration.targets.defaultConcurrency = 1_000
        var h = Harness(configuration: configuration)
        for index in 0..<300 { _ = h.request(.registerCountdown(Self.hooked("k\(index)", url: "https://hooks.example/done"))) }
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.expired).count == 300)
        #expect(fired.sends.count == 300)
    }

    @Test("polls that fell due while the daemon was down start 50 a second per target after the restart, then keep their interval")
    func restartSpreadsPolls() throws {
        var h = Harness()
        for index in 0..<100 {
            _ = h.poll(PollSpec(url: "https://api.example/jobs/\(index)", everyMs: 60_000, until: "status == 200", key: "p\(index)"))
        }
        // Unanswered, the polls stay in flight: the target's concurrency must not be what stops them.
        var configuration = SchedulerConfiguration()
        configuration.targets.defaultConcurrency = 1_000
        var (r, effects) = h.restarted(after: 300 * second, configuration: configuration)
        let restartedAt = r.now.instant
        var starts: [Int64] = []
        for _ in 0..<200 where starts.count < 100 {
            effects = r.fireAtArmedDeadline()
            starts += effects.sends.map { _ in r.now.instant.nanoseconds(since: restartedAt) }
        }
        #expect(starts.count == 100)
        #expect(starts.first == 0)
        #expect(zip(starts.dropFirst(), starts).allSatisfy { $0 - $1 == 20 * ms })
    }

    @Test("300 schedules that missed elapses while the daemon was down make one catch-up run each, 50 a second per target, the first at once")
    func restartSpreadsScheduleRuns() throws {
        var h = Harness()
        var schedules: [JobID] = []
        for index in 0..<300 {
            let url = index % 3 == 2 ? "https://other.example/nightly" : "https://hooks.example/nightly"
            let spec = ScheduleSpec(everyMs: 60_000, request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: 3), key: "s\(index)")
            let effects = h.request(.registerSchedule(spec))
            guard case .success(.registered(let reply))? = effects.replies.first?.result else {
                Issue.record("register-schedule failed: \(effects)")
                return
            }
            schedules.append(JobID(reply.job.id))
        }
        // Down from before the first elapse until 30 s after the fifth: 60, 120, 180, 240 and 300 s passed.
        var (r, effects) = h.restarted(after: 330 * second)
        let restartedAt = r.now.instant
        var sent: [(url: String, at: Int64)] = []
        for _ in 0..<2_000 {
            for send in effects.sends {
                sent.append((send.request.url, r.now.instant.nanoseconds(since: restartedAt)))
                _ = r.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200))))
            }
            // Stopped before the next elapse on the grid.
            guard sent.count < 300, let armed = r.armed, armed.nanoseconds(since: restartedAt) < 30 * second else { break }
            effects = r.fireAtArmedDeadline()
        }
        #expect(sent.count == 300, "one catch-up run for each schedule")
        for host in ["https://hooks.example", "https://other.example"] {
            let times = sent.filter { $0.url.hasPrefix(host) }.map(\.at)
            #expect(times.first == 0, "the first run to \(host) goes at once")
            #expect(zip(times.dropFirst(), times).allSatisfy { $0 - $1 == 20 * ms }, "then one every 20 ms to \(host)")
        }
        #expect(sent.filter { $0.url.hasPrefix("https://hooks.example") }.count == 200)
        // Every catch-up has gone before the next elapse on the grid (at 360 s, 30 s after the restart).
        #expect(sent.last.map(\.at) == 199 * 20 * ms)
        for id in schedules {
            let info = try #require(r.scheduleInfo(id))
            #expect(info.runs == 1 && info.missed == 4, "\(id): one run for five elapses, four counted as missed")
            #expect((270_000..<271_000).contains(info.lastLateByMs ?? 0), "\(id): late from the first elapse it missed (60 s), restarted at 330 s")
            #expect(info.next.first == WallTime(nanosecondsSinceEpoch: h.now.wall.nanosecondsSinceEpoch + 360 * second), "\(id): back on the grid")
        }
    }

    @Test("request.catchup_rate 0 sends every overdue hook at once")
    func rateZero() {
        var h = Harness()
        for index in 0..<50 { _ = h.request(.registerCountdown(Self.hooked("k\(index)", url: "https://hooks.example/done"))) }
        var configuration = SchedulerConfiguration()
        configuration.catchupRate = 0
        var (r, _) = h.restarted(after: 60 * second, configuration: configuration)
        #expect(r.handle(.timerFired).sends.count == 50)
    }

    @Test("a retry that fell due while the daemon was down waits for its target's slot like any overdue start")
    func restartSpreadsRetries() throws {
        var h = Harness()
        var ids: [JobID] = []
        for _ in 0..<10 {
            let (reply, effects) = h.submitted(
                SubmitSpec(
                    request: RequestSpec(method: "POST", url: "https://api.example/orders", body: "{}", maxAttempts: 5, backoffMinMs: 1_000, backoffMaxMs: 1_000),
                    dedupeWindowMs: 0))
            ids.append(JobID(reply.job.id))
            let send = try #require(effects.sends.first)
            _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 503))))
        }
        var (r, effects) = h.restarted(after: 60 * second)
        let restartedAt = r.now.instant
        if effects.sends.isEmpty { effects = r.handle(.timerFired) }
        let sent = r.sendsUntilQuiet(first: effects)
        #expect(Set(sent.map(\.send.job)) == Set(ids))
        #expect(sent.map { $0.at.nanoseconds(since: restartedAt) } == (0..<10).map { Int64($0) * 20 * ms })
    }

    @Test("durable hooks of on-time expiries are not paced, however long their commit takes")
    func slowCommitIsNotOverdue() {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.requestsInFlight = 1_000
        // The target's concurrency (http.max_connections_per_host, 64) holds the rest for slots, not for time.
        configuration.targets.defaultConcurrency = 1_000
        var h = Harness(configuration: configuration)
        for index in 0..<100 { _ = h.request(.registerCountdown(Self.hooked("k\(index)", url: "https://hooks.example/done"))) }
        h.autoCommit = false
        for token in h.pendingBarriers { _ = h.handle(.commitCompleted(token, failure: nil)) }
        h.pendingBarriers = []
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.expired).count == 100)
        h.advance(5 * second)
        var sends = 0
        for token in h.pendingBarriers { sends += h.handle(.commitCompleted(token, failure: nil)).sends.count }
        #expect(sends == 100)
    }
}
