import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

private func members(_ count: Int, path: String = "/m", maxAttempts: Int? = 1) -> [RequestSpec] {
    (0..<count).map { RequestSpec(method: "GET", url: "https://api.example\(path)/\($0)", maxAttempts: maxAttempts, backoffMinMs: 1_000) }
}

extension Harness {
    /// Registers a group and returns its id and the effects.
    mutating func group(_ spec: GroupSpec, connection: UInt64 = 1) -> (id: JobID, effects: [SchedulerEffect]) {
        let effects = request(.registerGroup(spec), connection: connection)
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("registration failed: \(effects)")
        }
        return (JobID(reply.job.id), effects)
    }

    /// Answers a send with a status.
    mutating func answer(_ send: HTTPSend, status: Int) -> [SchedulerEffect] {
        handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status, body: Array("s\(status)".utf8)))))
    }
}

@Suite("Group jobs on the injected clock")
struct GroupTests {
    @Test("at most `concurrency` members are out; a freed slot starts the next member in order")
    func concurrencyCap() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(10), concurrency: 3, follow: true))
        #expect(id.rawValue.hasPrefix("gr_"))
        var out = effects.sends
        #expect(out.map(\.request.url) == (0..<3).map { "https://api.example/m/\($0)" })
        var started = out.count
        var maxOut = out.count
        var completed: [JobEvent] = []
        while let send = out.first {
            out.removeFirst()
            let next = h.answer(send, status: 200)
            completed += next.events(.completed)
            out += next.sends
            started += next.sends.count
            maxOut = max(maxOut, out.count)
            #expect(next.sends.count <= 1)
        }
        #expect(started == 10)
        #expect(maxOut == 3)
        #expect(completed.count == 1)
        #expect(completed.first?.state == .succeeded)
        #expect(h.scheduler.job(id)?.state == .succeeded)
    }

    @Test("every error is reported: 3 failing members of 10 give 3 errors and a failed group")
    func allErrors() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(10), concurrency: 10, follow: true))
        var completed: [JobEvent] = []
        var memberEvents: [JobEvent] = []
        for send in effects.sends {
            let index = Int(send.request.url.split(separator: "/").last!)!
            let next = h.answer(send, status: [2, 5, 7].contains(index) ? 404 : 200)
            completed += next.events(.completed)
            memberEvents += next.events(.member)
        }
        #expect(completed.count == 1)
        #expect(completed.first?.state == .failed)
        #expect(completed.first?.failures == 3)
        #expect(memberEvents.count == 10)
        #expect(memberEvents.last?.done == 10)
        let view = try #require(h.scheduler.job(id).map { JobInfo($0, at: h.now) }?.group)
        #expect(view.errors.map(\.index) == [2, 5, 7])
        #expect(view.errors.allSatisfy { $0.error == "the server answered 404" && $0.state == .failed })
        #expect(view.members.map(\.state).filter { $0 == .succeeded }.count == 7)
        #expect(view.members[3].status == 200 && view.members[3].body == "s200")
        #expect(h.scheduler.job(id)?.error == "3 of 10 members did not succeed")
    }

    @Test("a member that never answers does not hang the group past its time limit")
    func timeout() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(5), concurrency: 2, timeoutMs: 5_000, follow: true))
        _ = h.answer(effects.sends[0], status: 200)
        // Member 1 never answers; member 2 started when member 0 ended and never answers either.
        h.advance(5 * second)
        let fired = h.handle(.timerFired)
        #expect(Set(fired.aborts.map(\.0)) == [id])
        #expect(fired.aborts.count == 2)
        let completed = try #require(fired.events(.completed).first)
        #expect(completed.state == .failed)
        let view = try #require(h.scheduler.job(id).map { JobInfo($0, at: h.now) }?.group)
        #expect(view.members.map(\.state) == [.succeeded, .timedOut, .timedOut, .notStarted, .notStarted])
        #expect(view.errors.count == 4)
        #expect(h.fireAtArmedDeadline().events.isEmpty)
    }

    @Test("a failing member retries inside its slot; no other member takes the slot meanwhile")
    func retryKeepsSlot() throws {
        var h = Harness()
        let (_, effects) = h.group(GroupSpec(members: members(3, maxAttempts: 3), concurrency: 1))
        let retried = h.answer(effects.sends[0], status: 503)
        #expect(retried.sends.isEmpty || retried.sends.first?.request.url == "https://api.example/m/0")
        let again = retried.sends.first ?? h.fireAtArmedDeadline().sends.first
        #expect(again?.request.url == "https://api.example/m/0")
        let next = h.answer(try #require(again), status: 200)
        #expect(next.sends.map(\.request.url) == ["https://api.example/m/1"])
    }

    @Test("cancelling aborts members on the wire, starts no pending member, and never completes")
    func cancel() throws {
        var h = Harness()
        let onComplete = RequestSpec(url: "https://hooks.example/done")
        let (id, effects) = h.group(GroupSpec(members: members(6), concurrency: 3, onComplete: onComplete, scope: "page", follow: true))
        let cancelled = h.request(.cancel(JobSelector(scope: "page")))
        #expect(Set(cancelled.aborts.map(\.1)) == Set(effects.sends.map(\.attempt)))
        #expect(cancelled.events(.completed).isEmpty)
        #expect(cancelled.events(.cancelled).count == 1)
        for send in effects.sends {
            let late = h.answer(send, status: 200)
            #expect(late.sends.isEmpty && late.events.isEmpty)
        }
        #expect(h.scheduler.table.headers { $0.kind != .group }.isEmpty)
        #expect(h.scheduler.job(id)?.state == .cancelled)
        // The members the cancel overtook say so, before a restart and after.
        let states: [MemberState] = [.cancelled, .cancelled, .cancelled, .notStarted, .notStarted, .notStarted]
        #expect(h.scheduler.job(id)?.group?.members.map(\.state) == states)
        #expect(h.scheduler.job(id)?.group?.done == 6)
        let (restarted, _) = h.restarted(after: 60 * second)
        #expect(restarted.scheduler.job(id)?.group?.members.map(\.state) == states)
    }

    @Test("a group read back after its end is as it ended, though its time limit passed meanwhile")
    func endedGroupRestored() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(2), concurrency: 2, timeoutMs: 30_000))
        for send in effects.sends { _ = h.answer(send, status: 200) }
        #expect(h.scheduler.job(id)?.state == .succeeded)
        let (restarted, _) = h.restarted(after: 60 * second)
        let group = try #require(restarted.scheduler.job(id)?.group)
        #expect(restarted.scheduler.job(id)?.state == .succeeded)
        #expect(group.members.map(\.state) == [.succeeded, .succeeded])
        #expect(group.done == 2)
        #expect(group.failures == 0)
    }

    @Test("a member whose last attempt got no answer shows no status or body from an earlier attempt")
    func noStaleMemberResult() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(1, maxAttempts: 2), follow: true))
        _ = h.answer(effects.sends[0], status: 503)
        let retry = try #require(h.fireAtArmedDeadline().sends.first)
        let ended = h.handle(.httpFinished(retry.job, attempt: retry.attempt, .failure("connection refused")))
        #expect(ended.events(.member).first?.status == nil)
        let member = try #require(h.scheduler.job(id)?.group?.members.first)
        #expect(member.state == .failed)
        #expect(member.result == nil)
    }

    @Test("completion fires once: the completed event, then the on_complete POST of the result after its commit")
    func onComplete() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerGroup(GroupSpec(members: members(2), onComplete: RequestSpec(url: "https://hooks.example/done"))))
        let id = try #require(h.persisted.last.map { JobID($0.jobID) }, "the group is written before it is acknowledged")
        let registered = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        _ = h.answer(registered.sends[0], status: 200)
        let last = h.answer(registered.sends[1], status: 500)
        let completed = try #require(last.events(.completed).first)
        let spawned = try #require(completed.spawned)
        #expect(last.sends.isEmpty, "sent only once the completion and the request job are on disk")
        var sends: [HTTPSend] = []
        while !h.pendingBarriers.isEmpty {
            sends += h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil)).sends
        }
        #expect(sends.count == 1, "the on_complete request is sent exactly once")
        let send = try #require(sends.first)
        #expect(send.job.rawValue == spawned)
        #expect(send.request.method == "POST")
        #expect(send.request.headers.contains(HTTPHeader(name: "Content-Type", value: "application/json")))
        let text = String(decoding: send.request.body ?? [], as: UTF8.self)
        let body = try #require(send.request.body.flatMap { JSONValue(json: $0) }, "the body is JSON: \(text)")
        guard case .object(let result) = body, case .array(let results)? = result["members"],
            case .array(let errors)? = result["errors"]
        else { throw TestFailure("unexpected body \(text)") }
        #expect(result["job"] == .string(id.rawValue))
        #expect(result["state"] == .string("failed"))
        #expect(results.count == 2)
        #expect(errors.count == 1)
        #expect(h.scheduler.table.headers { $0.kind == .request }.count == 1)
    }

    @Test("an on_complete report stays within http.max_request_bytes: answer bodies go first, then the lists' ends, counted")
    func reportWithinLimit() throws {
        for (count, expectCut) in [(10, false), (200, true)] {
            var h = Harness(configuration: { var c = SchedulerConfiguration(); c.maxRequestBodyBytes = 8_000; return c }())
            let spec = GroupSpec(members: members(count), concurrency: count, onComplete: RequestSpec(url: "https://hooks.example/done"), ephemeral: true)
            var out = h.group(spec).effects.sends
            var report: HTTPSend?
            while !out.isEmpty {
                let send = out.removeFirst()
                if send.request.url == "https://hooks.example/done" {
                    report = send
                    continue
                }
                let index = Int(send.request.url.split(separator: "/").last ?? "") ?? 0
                let answer = HTTPAnswer(status: index.isMultiple(of: 2) ? 200 : 500, body: [UInt8](repeating: UInt8(ascii: "x"), count: 3_000))
                out += h.handle(.httpFinished(send.job, attempt: send.attempt, .response(answer))).sends
            }
            let send = try #require(report)
            let bytes = send.request.body ?? []
            #expect(bytes.count <= 8_000, "\(count) members: \(bytes.count) bytes")
            guard case .object(let result)? = JSONValue(json: bytes), case .array(let kept)? = result["members"],
                case .array(let errors)? = result["errors"]
            else { throw TestFailure("unexpected body \(String(decoding: bytes, as: UTF8.self))") }
            #expect(result["total"] == .number(Double(count)) && result["failures"] == .number(Double(count / 2)))
            for member in kept {
                guard case .object(let fields) = member else { continue }
                #expect(fields["body"] == nil && fields["truncated"] == .bool(true), "answer bodies are left out first")
            }
            let membersOmitted: Int
            if case .number(let n)? = result["members_omitted"] { membersOmitted = Int(n) } else { membersOmitted = 0 }
            let errorsOmitted: Int
            if case .number(let n)? = result["errors_omitted"] { errorsOmitted = Int(n) } else { errorsOmitted = 0 }
            #expect(kept.count + membersOmitted == count)
            #expect(errors.count + errorsOmitted == count / 2)
            #expect((membersOmitted > 0) == expectCut, "\(count) members: \(kept.count) kept")
            if expectCut { #expect(errors.count > kept.count, "errors are kept before members") }
        }
    }

    @Test("members that end in one turn each report the counts of their own step")
    func countsPerMemberInOneTurn() throws {
        var h = Harness()
        let (_, registered) = h.group(GroupSpec(members: members(4), concurrency: 3, follow: true))
        #expect(registered.sends.count == 3)
        // The three requests go unanswered and time out in the same timer turn.
        h.advance(h.scheduler.configuration.requestTimeoutNanos + second)
        let events = h.fireDue().events(.member)
        #expect(events.map(\.done) == [1, 2, 3], "\(events)")
        #expect(events.map(\.failures) == [1, 2, 3])
    }

    @Test("two groups with identical members share nothing")
    func isolation() throws {
        var h = Harness()
        let (a, aEffects) = h.group(GroupSpec(members: members(2), concurrency: 2, follow: true))
        let (b, bEffects) = h.group(GroupSpec(members: members(2), concurrency: 2, follow: true))
        let aDone = aEffects.sends.flatMap { h.answer($0, status: 200).events(.completed) }
        #expect(aDone.map(\.job) == [a.rawValue])
        #expect(h.scheduler.job(b)?.state == .active)
        #expect(h.scheduler.job(b)?.group?.done == 0)
        let bDone = bEffects.sends.flatMap { h.answer($0, status: 404).events(.completed) }
        #expect(bDone.map(\.state) == [.failed])
        #expect(h.scheduler.job(a)?.state == .succeeded)
    }

    @Test("after a restart, unfinished members run again and finished ones are not resent")
    func restart() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(4), concurrency: 2))
        _ = h.answer(effects.sends[0], status: 200)
        var (restarted, _) = h.restarted(after: 1 * second)
        let resumed = restarted.fireAtArmedDeadline()
        #expect(resumed.sends.map(\.request.url) == ["https://api.example/m/1", "https://api.example/m/2"])
        var out = resumed.sends
        var completed: [JobEvent] = []
        while let send = out.first {
            out.removeFirst()
            let next = restarted.answer(send, status: 200)
            out += next.sends
            completed += next.events(.completed)
        }
        #expect(restarted.scheduler.job(id)?.state == .succeeded)
        #expect(restarted.scheduler.job(id)?.group?.members.map(\.delivery.attempts) == [1, 1, 1, 1])
    }

    @Test("restored after its time limit ran out, a group's members sent before the stop end timed_out and those never sent not_started; a member waiting to retry keeps its attempts across a restart")
    func restartPastTimeLimit() throws {
        var h = Harness()
        let (id, effects) = h.group(GroupSpec(members: members(3, maxAttempts: 3), concurrency: 2, timeoutMs: 10_000))
        #expect(effects.sends.count == 2)
        // Member 0 fails once and waits for its retry; member 1 is in flight; member 2 never started.
        _ = h.answer(effects.sends[0], status: 503)
        var (early, _) = h.restarted(after: 1 * second)
        #expect(early.scheduler.job(id)?.group?.members.map(\.delivery.attempts) == [1, 0, 0], "the failed attempt is counted")
        let resent = early.fireAtArmedDeadline().sends
        #expect(resent.count == 2)
        var (late, _) = h.restarted(after: 20 * second)
        let fired = late.fireAtArmedDeadline()
        #expect(fired.sends.isEmpty)
        #expect(late.scheduler.job(id)?.state == .failed)
        #expect(late.scheduler.job(id)?.group?.members.map(\.state) == [.timedOut, .timedOut, .notStarted])
    }

    @Test("bad groups are refused with a stable code", arguments: [
        (GroupSpec(members: []), SchedulerError.Code.badField),
        (GroupSpec(members: members(2), concurrency: 0), .badField),
        (GroupSpec(members: [RequestSpec(url: "file:///etc/passwd")]), .badURL),
        (GroupSpec(members: members(2), timeoutMs: -5), .badDuration),
    ])
    func refusals(spec: GroupSpec, code: SchedulerError.Code) {
        var h = Harness()
        let effects = h.request(.registerGroup(spec))
        #expect(effects.errorCodes == [code])
        #expect(effects.sends.isEmpty)
        #expect(h.scheduler.activeJobCount == 0)
    }
}
