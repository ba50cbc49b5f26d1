import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("Target limits on the injected clock: rate, burst, concurrency, turns across users, Retry-After")
struct TargetLimitsTests {
    private static func limited(_ name: String = "api.example", _ body: (inout TargetLimits) -> Void) throws -> Harness {
        var configuration = SchedulerConfiguration()
        try configuration.targets.update(name, body)
        return Harness(configuration: configuration)
    }

    private static func order(_ url: String = "https://api.example/orders", attempts: Int = 3) -> SubmitSpec {
        SubmitSpec(
            request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: attempts, backoffMinMs: 1_000, backoffMaxMs: 1_000),
            dedupeWindowMs: 0)
    }

    /// Answers every send 200 as it goes out, runs the timer until nothing is armed or `until`
    /// passes, and returns the instants the requests went out.
    private static func drain(_ h: inout Harness, first: [HTTPSend], until: Instant) -> [Instant] {
        var sentAt = first.map { _ in h.now.instant }
        var pending = first
        while true {
            while let send = pending.first {
                pending.removeFirst()
                let effects = h.answer(send, status: 200, json: nil)
                sentAt += effects.sends.map { _ in h.now.instant }
                pending += effects.sends
            }
            guard let armed = h.armed, armed <= until else { break }
            let effects = h.fireAtArmedDeadline()
            sentAt += effects.sends.map { _ in h.now.instant }
            pending += effects.sends
        }
        return sentAt
    }

    @Test("rate 20/s with burst 5: 5 at once, then one every 50 ms; no second holds more than rate + burst; waiting spends no attempt")
    func rateAndBurst() throws {
        var h = try Self.limited { $0.rate = TargetRate("20/s"); $0.burst = 5 }
        var first: [HTTPSend] = []
        var ids: [JobID] = []
        for _ in 0..<60 {
            let (reply, effects) = h.submitted(Self.order())
            ids.append(JobID(reply.job.id))
            first += effects.sends
        }
        #expect(first.count == 5, "the burst goes at once")
        #expect(try #require(h.scheduler.job(ids[59])?.delivery).attempts == 0, "a request waiting for a token is no attempt")
        let start = h.now.instant
        let times = Self.drain(&h, first: first, until: start.advanced(by: 10 * second))
        #expect(times.count == 60)
        let gaps = zip(times.dropFirst(5), times.dropFirst(4)).map { $0.nanoseconds(since: $1) }
        #expect(gaps.allSatisfy { $0 == 50_000_000 || $0 == 0 }, "\(gaps)")
        #expect(times.last == start.advanced(by: 55 * 50_000_000))
        for window in 0..<3 {
            let from = start.advanced(by: Int64(window) * 500_000_000)
            let inWindow = times.filter { $0 >= from && $0 < from.advanced(by: second) }.count
            #expect(inWindow <= 25, "window from \(window * 500) ms holds \(inWindow)")
        }
        for id in ids { #expect(h.scheduler.job(id)?.state == .succeeded) }
    }

    @Test("the most specific table applies: HOST:PORT, then HOST, then the longest *.DOMAIN, then [targets.default]")
    func matching() throws {
        var rules = TargetRules()
        try rules.update("default") { $0.rate = TargetRate("1/s") }
        try rules.update("*.example.com") { $0.rate = TargetRate("2/s") }
        try rules.update("*.eu.example.com") { $0.concurrency = 3 }
        try rules.update("api.example.com") { $0.rate = TargetRate("4/s") }
        try rules.update("API.example.com:8443") { $0.rate = TargetRate("8/s") }
        try rules.update("[::1]:8080") { $0.burst = 7 }
        func limits(_ url: String) -> TargetRules.Resolved { rules.limits(for: RequestURL.target(url)) }
        #expect(limits("https://api.example.com:8443/x").rate == TargetRate("8/s"))
        #expect(limits("https://api.example.com/x").rate == TargetRate("4/s"))
        #expect(limits("http://api.example.com:80/x").table == "api.example.com")
        #expect(limits("https://a.b.example.com/").rate == TargetRate("2/s"))
        let eu = limits("https://x.eu.example.com/")
        #expect(eu.table == "*.eu.example.com" && eu.concurrency == 3 && eu.rate == TargetRate("1/s"), "a key left out comes from the default table")
        #expect(limits("https://example.org/").table == "default")
        #expect(limits("https://api.example.com./x").rate == TargetRate("4/s"), "the fully qualified name is the same host")
        #expect(limits("https://API.example.com.:8443/x").rate == TargetRate("8/s"))
        #expect(limits("http://[::1]:8080/").burst == 7)
        #expect(limits("http://[::1]:8081/").table == "default")
        for spelling in ["http://[0:0::1]:8080/", "http://[0000:0000:0000:0000:0000:0000:0000:0001]:8080/", "http://[::0001]:08080/"] {
            #expect(limits(spelling).burst == 7, "another spelling of the same address is the same target: \(spelling)")
        }
        try rules.update("[2001:DB8:0:0:1::0001]:443") { $0.burst = 9 }
        #expect(limits("https://[2001:db8::1:0:0:1]/").burst == 9, "a table's IPv6 name is canonical too")
        try rules.update("127.0.0.1:9000") { $0.burst = 11 }
        #expect(limits("http://[::ffff:127.0.0.1]:9000/").burst == 11, "an IPv4-mapped address is its IPv4 target")
        #expect(limits("http://[::FFFF:7F00:1]:9000/").burst == 11)
        #expect(RequestURL.target("http://[FE80:0::1%25ETH0]:8080/") == "[fe80::1%25eth0]:8080", "a zone is kept")
        #expect(RequestURL.target("http://[fe80::1%25eth1]:8080/") != RequestURL.target("http://[fe80::1%25eth0]:8080/"), "one link, one target")
        #expect(rules.limits(for: "other:80").concurrency == 64, "http.max_connections_per_host is the default concurrency")
        for bad in ["api.example.com:0", "*.", "a b", "http://x", "[::1", "api.example.com:99999", "*.example.com:80"] {
            #expect(throws: SchedulerError.self, "\(bad)") { try rules.update(bad) { $0.burst = 1 } }
        }
        #expect(TargetRate("600/m")?.intervalNanos == 100_000_000)
        for bad in ["0/s", "20", "20/d", "-1/s", "/s", "20/S"] { #expect(TargetRate(bad) == nil, "\(bad)") }
    }

    @Test("concurrency 2: a third request waits for an answer, not for time; another target is not held")
    func concurrency() throws {
        var h = try Self.limited { $0.concurrency = 2 }
        let sends = (0..<3).flatMap { _ in h.submitted(Self.order()).effects.sends }
        #expect(sends.count == 2)
        #expect(h.submitted(Self.order("https://other.example/x")).effects.sends.count == 1)
        let next = h.answer(try #require(sends.first), status: 200, json: nil)
        #expect(next.sends.count == 1, "the freed slot goes to the waiting request")
    }

    @Test("users take turns: one user's 50 queued submits delay another's poll by one request")
    func turnsAcrossUsers() throws {
        var h = try Self.limited { $0.rate = TargetRate("10/s") }
        var pending = (0..<50).flatMap { _ in h.submitted(Self.order()).effects.sends }
        #expect(pending.count == 1)
        var spec = pollSpec(every: 60_000, ephemeral: true)
        spec.url = "https://api.example/jobs/7"
        let poll = h.poll(spec, connection: 2)
        #expect(poll.effects.sends.isEmpty, "the poll waits for a token too")
        var order: [JobID] = []
        for _ in 0..<3 {
            for send in pending where send.job != poll.id { _ = h.answer(send, status: 200, json: nil) }
            pending = h.fireAtArmedDeadline().sends
            order += pending.map(\.job)
        }
        #expect(order.prefix(2).contains(poll.id), "the other user's poll waits behind one request at most, \(order)")
        #expect(try #require(h.scheduler.job(poll.id)?.poll).failures == 0)
    }

    @Test("a poll's --timeout keeps running while it waits for a token, and ends it")
    func pollTimeoutWhileWaiting() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/h") }
        _ = h.submitted(Self.order())
        var spec = pollSpec(every: 1_000, timeoutMs: 5_000, ephemeral: true)
        spec.url = "https://api.example/jobs/7"
        let poll = h.poll(spec)
        #expect(poll.effects.sends.isEmpty)
        _ = h.fireAtArmedDeadline()
        let job = try #require(h.scheduler.job(poll.id))
        #expect(job.state == .timedOut)
        #expect(job.poll?.polls == 0)
    }

    @Test("a group's time limit keeps running while its members wait for a token, and ends it")
    func groupTimeoutWhileWaiting() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/h") }
        _ = h.submitted(Self.order())
        let members = (0..<3).map { RequestSpec(method: "GET", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let group = h.group(GroupSpec(members: members, timeoutMs: 5_000, ephemeral: true))
        #expect(group.effects.sends.isEmpty, "the hour's one token is gone")
        #expect(h.armed == h.now.instant.advanced(by: 5 * second), "the time limit is what the timer waits for")
        _ = h.fireAtArmedDeadline()
        let job = try #require(h.scheduler.job(group.id))
        #expect(job.state == .failed, "a group past its time limit fails, as when its members are slow")
        #expect(job.group?.members.allSatisfy { $0.delivery.attempts == 0 } == true, "no member spent an attempt")
        let view = try #require(JobInfo(job, at: h.now).group)
        #expect(view.members.map(\.state) == [.notStarted, .notStarted, .notStarted])
    }

    @Test("on_expire and report requests take their target's tokens like any request")
    func spawnedRequestsAreLimited() throws {
        var h = try Self.limited("hooks.example") { $0.rate = TargetRate("1/s") }
        let hook = RequestSpec(method: "POST", url: "https://hooks.example/done", body: "{}", maxAttempts: 1)
        for key in ["a", "b"] {
            _ = h.request(.registerCountdown(CountdownSpec(key: key, durationMs: 1_000, ephemeral: true, onExpire: hook)))
        }
        let start = h.now.instant.advanced(by: 1 * second)
        let expired = h.fireAtArmedDeadline()
        #expect(expired.sends.count == 1, "one hook now, the other waits for the next token")
        let (_, submitted) = h.submitted(
            SubmitSpec(
                request: RequestSpec(method: "POST", url: "https://api.example/orders", body: "{}", maxAttempts: 1), dedupeWindowMs: 0,
                ephemeral: true, onSuccess: hook))
        let order = try #require(submitted.sends.first, "api.example has no limit")
        let answered = h.handle(.httpFinished(order.job, attempt: order.attempt, .response(HTTPAnswer(status: 200))))
        #expect(answered.sends.isEmpty, "the success report waits for the target's token too")
        var hooks: [Int64] = []
        for _ in 0..<6 where h.armed != nil {
            for send in h.fireAtArmedDeadline().sends where send.request.url.hasPrefix("https://hooks.example") {
                hooks.append(h.now.instant.nanoseconds(since: start))
                _ = h.answer(send, status: 200, json: nil)
            }
        }
        #expect(hooks == [1 * second, 2 * second], "the second hook and the report, a token each")
    }

    @Test("a 429 with Retry-After pauses the whole target, the other jobs too; the answer still counts for its own job")
    func retryAfterPausesTarget() throws {
        var h = Harness()
        let first = try #require(h.submitted(Self.order()).effects.sends.first)
        let answered = h.handle(.httpFinished(first.job, attempt: first.attempt, .response(HTTPAnswer(status: 429, retryAfter: "30"))))
        #expect(answered.sends.isEmpty)
        #expect(try #require(h.scheduler.job(first.job)?.delivery).attempts == 1)
        let other = h.submitted(Self.order(), connection: 2)
        #expect(other.effects.sends.isEmpty, "another user's request to the paused target waits")
        #expect(h.submitted(Self.order("https://other.example/x")).effects.sends.count == 1, "other targets are not paused")
        let start = h.now.instant
        var resumed: [HTTPSend] = []
        while resumed.isEmpty, let armed = h.armed, armed <= start.advanced(by: 60 * second) {
            resumed = h.fireAtArmedDeadline().sends
        }
        #expect(h.now.instant.nanoseconds(since: start) == 30 * second)
        #expect(resumed.map(\.job).contains(JobID(other.reply.job.id)))
    }

    @Test("a group waiting in one target's line still retries a member to another target when its backoff ends")
    func groupRetriesPastAPausedTarget() throws {
        var h = Harness()
        let members = [
            RequestSpec(url: "https://other.example/0", maxAttempts: 3, backoffMinMs: 1_000, backoffMaxMs: 1_000),
            RequestSpec(url: "https://api.example/1", maxAttempts: 1), RequestSpec(url: "https://api.example/2", maxAttempts: 1),
        ]
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 2, ephemeral: true))
        let sends = registered.sends.filter { $0.job == group }
        #expect(sends.compactMap(\.member) == [0, 1])
        let toOther = try #require(sends.first { $0.member == 0 })
        let toAPI = try #require(sends.first { $0.member == 1 })
        // A 429 pauses api.example for ten minutes: member 2 waits in its line, and the group with it.
        let paused = h.handle(.httpFinished(group, attempt: toAPI.attempt, .response(HTTPAnswer(status: 429, retryAfter: "600"))))
        #expect(paused.sends.isEmpty)
        _ = h.handle(.httpFinished(group, attempt: toOther.attempt, .response(HTTPAnswer(status: 503))))
        let start = h.now.instant
        var retried: [HTTPSend] = []
        while retried.isEmpty, let armed = h.armed, armed <= start.advanced(by: 60 * second) {
            retried = h.fireAtArmedDeadline().sends.filter { $0.job == group }
        }
        #expect(retried.compactMap(\.member) == [0], "member 0 retried to the free target, not after api.example's pause")
        #expect(h.now.instant.nanoseconds(since: start) <= 1 * second)
    }

    @Test("a reload that lifts the rate starts the waiting jobs at once")
    func reloadFrees() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/h") }
        _ = h.submitted(Self.order())
        #expect(h.submitted(Self.order()).effects.sends.isEmpty)
        let started = h.handle(.reconfigure(SchedulerConfiguration()))
        #expect(started.sends.count == 1)
    }

    @Test("a cancelled waiting job leaves the line; a group's members each take a token")
    func cancelAndGroup() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/s") }
        let first = h.submitted(Self.order())
        #expect(first.effects.sends.count == 1)
        let waiting = h.submitted(Self.order())
        _ = h.request(.cancel(JobSelector(job: waiting.reply.job.id)))
        let members = (0..<2).map { RequestSpec(method: "GET", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 2))
        #expect(registered.sends.isEmpty)
        var groupSends: [HTTPSend] = []
        for _ in 0..<4 where groupSends.count < 2 {
            groupSends += h.fireAtArmedDeadline().sends.filter { $0.job == group }
        }
        #expect(groupSends.count == 2)
        #expect(h.scheduler.job(JobID(waiting.reply.job.id))?.delivery?.attempts == 0)
    }

    @Test("status with targets: the table, tokens, in flight, waiting, the last minute and a pause; a user sees only the targets their jobs use")
    func statusTargets() throws {
        var h = try Self.limited { $0.rate = TargetRate("2/s"); $0.concurrency = 5 }
        let first = try #require(h.submitted(Self.order()).effects.sends.first)
        _ = h.submitted(Self.order())
        _ = h.submitted(Self.order())
        _ = h.submitted(Self.order("https://other.example/x"), connection: 2)
        func targets(connection: UInt64) throws -> [TargetLimitInfo] {
            guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true)), connection: connection).replies.first?.result
            else { throw TestFailure("no summary") }
            return try #require(summary.targets)
        }
        let mine = try targets(connection: 1)
        #expect(mine.map(\.target) == ["api.example:443"], "uid 1000 does not see uid 1001's target")
        let api = try #require(mine.first)
        #expect(api.table == "api.example" && api.rate == "2/s" && api.burst == 1 && api.concurrency == 5)
        #expect(api.tokens == 0 && api.inFlight == 1 && api.waiting == 2 && api.requestsLastMinute == 1)
        #expect(try targets(connection: 3).map(\.target) == ["api.example:443", "other.example:443"], "root sees every target")
        _ = h.handle(.httpFinished(first.job, attempt: first.attempt, .response(HTTPAnswer(status: 503, retryAfter: "20"))))
        let paused = try #require(try targets(connection: 1).first)
        #expect(paused.pausedUntil == h.now.wall(at: h.now.instant.advanced(by: 20 * second)))
        #expect(paused.inFlight == 0 && paused.lastError == "the server answered 503")
        guard case .success(.summary(let plain)) = h.request(.status(StatusRequest())).replies.first?.result else { return }
        #expect(plain.targets == nil, "without targets the summary stays as it was")
    }

    @Test("root's status --targets also shows each configured table nothing has used yet, with its policy and an idle state; a user's does not")
    func statusTargetsIdleTables() throws {
        var h = try Self.limited { $0.rate = TargetRate("2/s"); $0.burst = 4 }
        try h.scheduler.configuration.targets.update("*.partner.example") { $0.concurrency = 3 }
        func targets(connection: UInt64) throws -> [TargetLimitInfo] {
            guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true)), connection: connection).replies.first?.result
            else { throw TestFailure("no summary") }
            return try #require(summary.targets)
        }
        let idle = try targets(connection: 3)
        #expect(idle.map(\.target) == ["*.partner.example", "api.example"])
        let api = try #require(idle.last)
        #expect(api.table == "api.example" && api.rate == "2/s" && api.burst == 4 && api.tokens == 4)
        #expect(api.inFlight == 0 && api.waiting == 0 && api.requestsLastMinute == 0 && api.pausedUntil == nil)
        #expect(idle.first?.concurrency == 3 && idle.first?.tokens == nil, "no rate, no bucket")
        #expect(try targets(connection: 1).isEmpty, "a user sees only the targets their jobs use")
        _ = h.submitted(Self.order())
        #expect(try targets(connection: 3).map(\.target) == ["api.example:443", "*.partner.example"], "in use, the table shows as its target")
    }

    @Test("a backlog keeps the rate when every turn comes 1 ms late: 21 requests at 20/s span 1 s, not 1.02 s")
    func lateTurnsKeepTheRate() throws {
        var h = try Self.limited { $0.rate = TargetRate("20/s") }
        var pending = (0..<21).flatMap { _ in h.submitted(Self.order()).effects.sends }
        var sent = pending.count
        let start = h.now.instant
        while sent < 21 {
            for send in pending { _ = h.answer(send, status: 200, json: nil) }
            let armed = try #require(h.armed)
            h.advance(armed.nanoseconds(since: h.now.instant) + 1_000_000)
            pending = h.handle(.timerFired).sends
            sent += pending.count
        }
        #expect(h.now.instant.nanoseconds(since: start) == 20 * 50_000_000 + 1_000_000)
    }

    @Test("a request that dies on a 429 with Retry-After keeps its dead letter's timer and takes no token after its end")
    func deadOnRetryAfter() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/s"); $0.burst = 3 }
        let send = try #require(h.submitted(Self.order(attempts: 1)).effects.sends.first)
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 429, retryAfter: "30"))))
        #expect(h.scheduler.job(send.job)?.state == .dead)
        #expect(h.scheduler.timers.contains(.job(send.job)), "the dead letter's retention is still on the timer")
        guard case .success(.summary(let summary)) = h.request(.status(StatusRequest(targets: true)), connection: 3).replies.first?.result
        else { throw TestFailure("no summary") }
        #expect(summary.targets?.first?.waiting == 0)
        #expect(summary.targets?.first?.tokens == 2, "one token for the one request sent, none for the ended job")
    }

    @Test("a group never has more members on the wire to a target than its concurrency")
    func groupConcurrency() throws {
        var h = try Self.limited { $0.concurrency = 2 }
        let members = (0..<5).map { RequestSpec(method: "GET", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 5))
        #expect(registered.sends.count == 2)
        var pending = registered.sends
        var most = pending.count
        var sent = pending.count
        while let send = pending.first {
            pending.removeFirst()
            let next = h.answer(send, status: 200, json: nil).sends
            pending += next
            sent += next.count
            most = max(most, pending.count)
        }
        #expect(sent == 5 && most <= 2)
        #expect(h.scheduler.job(group)?.state == .succeeded)
    }

    @Test("a group and another user's request take turns for the target's one slot, one request each")
    func groupTakesTurns() throws {
        var h = try Self.limited { $0.concurrency = 1 }
        let members = (0..<4).map { RequestSpec(method: "GET", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 4))
        var send = try #require(registered.sends.first)
        let other = JobID(h.submitted(Self.order(), connection: 2).reply.job.id)
        var order: [JobID] = []
        for _ in 0..<4 {
            send = try #require(h.answer(send, status: 200, json: nil).sends.first)
            order.append(send.job)
        }
        // The group waited first (for its other members), so its second member goes first; then
        // the users alternate, one request each.
        #expect(order == [group, other, group, group], "\(order)")
    }

    @Test("a reload that raises the rate applies to the jobs already waiting")
    func reloadRaisesRate() throws {
        var h = try Self.limited { $0.rate = TargetRate("1/h") }
        _ = h.submitted(Self.order())
        #expect(h.submitted(Self.order()).effects.sends.isEmpty)
        var configuration = SchedulerConfiguration()
        try configuration.targets.update("api.example") { $0.rate = TargetRate("10/s") }
        #expect(h.handle(.reconfigure(configuration)).sends.count == 1)
    }

    @Test("a signed target's requests carry the job id as the message id, the same on a retry; a group member's with its index, each poll's with its number; other targets' are unsigned")
    func signingIDs() throws {
        let secrets = try SigningSecrets(parsing: "# keys\r\nwhsec_AAECAw==\r\n\r\n  whsec_BAUG  \n")
        #expect(secrets.keys == [[0, 1, 2, 3], [4, 5, 6]] && secrets.description == "2 signing secrets")
        for bad in ["whsec_!!", "AAECAw==", "whsec_", ""] {
            #expect(throws: SchedulerError.self, "\(bad)") { try SigningSecrets(parsing: bad) }
        }
        var h = try Self.limited { $0.signSecretFile = "/etc/reqd/hooks.secret"; $0.signing = secrets }
        let send = try #require(h.submitted(Self.order()).effects.sends.first)
        #expect(send.signing == WebhookSigning(id: send.job.rawValue, secrets: secrets))
        let members = (0..<2).map { RequestSpec(method: "POST", url: "https://api.example/m/\($0)", maxAttempts: 1) }
        let (group, registered) = h.group(GroupSpec(members: members, concurrency: 2))
        #expect(registered.sends.map { $0.signing?.id } == ["\(group)-0", "\(group)-1"])
        #expect(try #require(h.submitted(Self.order("https://other.example/x")).effects.sends.first).signing == nil)

        // A request job's retry is the same message; each poll of a poll job is a message of its own.
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, Fixture.answer(503)))
        let retry = try #require(h.fireAtArmedDeadline().sends.first)
        #expect(retry.job == send.job && retry.attempt != send.attempt && retry.signing?.id == send.job.rawValue)
        let (poll, started) = h.poll(PollSpec(url: "https://api.example/jobs/9", everyMs: 1_000, until: "status == 201"))
        let first = try #require(started.sends.first)
        _ = h.handle(.httpFinished(poll, attempt: first.attempt, Fixture.answer(200)))
        let second = try #require(h.fireAtArmedDeadline().sends.first { $0.job == poll })
        #expect([first, second].map { $0.signing?.id } == ["\(poll)-\(first.attempt)", "\(poll)-\(second.attempt)"])
        #expect(first.attempt != second.attempt)
    }

    @Test("a reload that lowers the rate leaves the request in flight alone: no abort, and its answer counts")
    func reloadKeepsInFlight() throws {
        var h = try Self.limited { $0.rate = TargetRate("10/s") }
        let send = try #require(h.submitted(Self.order()).effects.sends.first)
        var configuration = SchedulerConfiguration()
        try configuration.targets.update("api.example") { $0.rate = TargetRate("1/h") }
        #expect(h.handle(.reconfigure(configuration)).aborts.isEmpty)
        _ = h.answer(send, status: 200, json: nil)
        #expect(h.scheduler.job(send.job)?.state == .succeeded)
    }
}
