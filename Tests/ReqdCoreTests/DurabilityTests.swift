import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

@Suite("Durable registration, restore and ownership")
struct DurabilityTests {
    @Test("a durable countdown is written, then acknowledged only after its commit")
    func ackAfterCommit() {
        var h = Harness()
        h.autoCommit = false
        let effects = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 5_000)))
        #expect(effects.replies.isEmpty)
        guard case .persist(.insert(let record)) = effects.first(where: { if case .persist = $0 { true } else { false } }) else {
            Issue.record("no insert")
            return
        }
        #expect(record.state == .active)
        #expect(record.deadline == WallTime(nanosecondsSinceEpoch: h.now.wall.nanosecondsSinceEpoch + 5 * second))
        #expect(h.scheduler.activeJobCount == 0)
        h.advance(3 * ms)
        let done = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        guard case .success(.registered(let reply)) = done.replies.first?.result else {
            Issue.record("no ack")
            return
        }
        #expect(reply.job.id == record.id)
        #expect(reply.job.remainingMs == 4_997)
        #expect(h.scheduler.activeJobCount == 1)
    }

    @Test("a failed commit refuses the registration with storage_unavailable and changes nothing")
    func failedCommitRefuses() {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 5_000)))
        let done = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: "disk full"))
        #expect(done.errorCodes == [.storageUnavailable])
        #expect(h.scheduler.activeJobCount == 0)
        #expect(h.armed == nil)
    }

    @Test("an ephemeral countdown skips the store")
    func ephemeralSkipsStore() {
        var h = Harness()
        let (_, reply, effects) = h.countdown(key: "k", seconds: 5, ephemeral: true)
        #expect(reply.job.durable == false)
        #expect(!effects.contains { if case .persist = $0 { true } else { false } })
        _ = h.fireAtArmedDeadline()
        #expect(h.persisted.isEmpty)
    }

    @Test("a durable cancel is acknowledged after its change is committed")
    func cancelAfterCommit() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 5)
        h.autoCommit = false
        let effects = h.request(.cancel(JobSelector(job: id.rawValue)))
        #expect(effects.replies.isEmpty)
        #expect(h.persisted.last.map { if case .progress(_, let p) = $0 { p.state == .cancelled } else { false } } == true)
        let done = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(done.replies.count == 1)
    }

    @Test("restored countdowns keep their id and true remaining time; missed deadlines fire at once with late_by")
    func restore() {
        var h = Harness()
        let wall = h.now.wall.nanosecondsSinceEpoch
        func record(_ id: String, key: String, deadlineIn: Int64) -> JobRecord {
            JobRecord(
                id: id, owner: 1000, kind: .countdown, state: .active, key: key, scope: nil,
                createdAt: WallTime(nanosecondsSinceEpoch: wall - 100 * second), endedAt: nil, reason: nil,
                replacedBy: nil, deadline: WallTime(nanosecondsSinceEpoch: wall + deadlineIn), tickNanos: second,
                lateByNanos: nil)
        }
        let restored = h.handle(.restore([record("cd_future", key: "a", deadlineIn: 30 * second), record("cd_past", key: "b", deadlineIn: -4 * second)]))
        #expect(restored.arms == [h.now.instant.advanced(by: -4 * second)])
        guard case .success(.job(let future)) = h.request(.status(StatusRequest(job: "cd_future"))).replies.first?.result else {
            Issue.record("not restored")
            return
        }
        #expect(future.job.remainingMs == 30_000)
        h.advance(1 * ms)
        let fired = h.handle(.timerFired)
        #expect(fired.events(.expired).map(\.job) == ["cd_past"])
        #expect(fired.events(.expired).first?.lateByMs == 4_001)
        #expect(h.armed == h.now.instant.advanced(by: 30 * second - 1 * ms))
    }

    @Test(
        "a restore in chunks read in any order ends as one at once: the newer active row with a key holds it; ended jobs leave in end order",
        arguments: [false, true])
    func restoreInChunks(chunked: Bool) {
        var configuration = SchedulerConfiguration()
        configuration.retentionNanos = 15 * second
        var h = Harness(configuration: configuration)
        let wall = h.now.wall.nanosecondsSinceEpoch
        func record(_ id: String, key: String?, createdAgo: Int64, endedAgo: Int64? = nil) -> JobRecord {
            JobRecord(
                id: id, owner: 1000, kind: .countdown, state: endedAgo == nil ? .active : .expired, key: key, scope: nil,
                createdAt: WallTime(nanosecondsSinceEpoch: wall - createdAgo), endedAt: endedAgo.map { WallTime(nanosecondsSinceEpoch: wall - $0) },
                reason: nil, replacedBy: nil, deadline: WallTime(nanosecondsSinceEpoch: wall + 60 * second), tickNanos: second,
                lateByNanos: nil)
        }
        // Each chunk in creation order, the chunks not: the newer row with key "k" is read first,
        // and the job that ended last is read before the one that ended first.
        let chunks = [
            [record("cd_new", key: "k", createdAgo: 50 * second), record("cd_e1", key: nil, createdAgo: 40 * second, endedAgo: 10 * second)],
            [record("cd_old", key: "k", createdAgo: 100 * second), record("cd_e2", key: nil, createdAgo: 90 * second, endedAgo: 20 * second)],
        ]
        if chunked {
            for chunk in chunks {
                let effects = h.handle(.restoreChunk(RestoreChunk(chunk, expecting: 4, at: h.now, configuration: configuration)))
                #expect(effects.arms.isEmpty && effects.events(.expired).isEmpty, "nothing is armed or fires before the last chunk")
            }
            #expect(!h.handle(.restoreEnded).arms.isEmpty)
        } else {
            _ = h.handle(.restore(chunks.flatMap { $0 }))
        }
        func status(_ id: String) -> JobInfo? {
            guard case .success(.job(let result)) = h.request(.status(StatusRequest(job: id))).replies.first?.result else { return nil }
            return result.job
        }
        #expect(status("cd_new")?.state == .active)
        #expect(status("cd_old")?.state == .cancelled)
        #expect(status("cd_old")?.replacedBy == "cd_new")
        _ = h.handle(.timerFired)
        #expect(status("cd_e2") == nil, "ended 20 s ago, past its 15 s of retention")
        #expect(status("cd_e1")?.state == .expired)
        h.advance(5 * second + 1 * ms)
        _ = h.handle(.timerFired)
        #expect(status("cd_e1") == nil)
    }

    @Test("a job with a key is made after the one it replaces, even after the clock steps back; a restore of both as active keeps it")
    func replacementAfterClockStep() {
        var h = Harness()
        func status(_ id: JobID, in h: inout Harness) -> JobInfo? {
            guard case .success(.job(let result)) = h.request(.status(StatusRequest(job: id.rawValue))).replies.first?.result else { return nil }
            return result.job
        }
        let older = h.countdown(key: "k", seconds: 60).id
        h.now.wall.nanosecondsSinceEpoch -= 5 * second
        let newer = h.countdown(key: "k", seconds: 60).id
        let olderMade = status(older, in: &h)?.createdAt
        let newerMade = status(newer, in: &h)?.createdAt
        #expect(olderMade != nil && newerMade != nil && newerMade! > olderMade!, "\(String(describing: newerMade)) after \(String(describing: olderMade))")

        // The newer job's commit alone, as a crash before the older one's end is written leaves it.
        let rows = h.storedRecords.map { record in
            guard record.id == older.rawValue else { return record }
            var active = record
            active.state = .active
            active.endedAt = nil
            active.reason = nil
            active.replacedBy = nil
            return active
        }
        #expect(rows.filter { $0.state == .active }.count == 2)
        var restarted = Harness()
        _ = restarted.handle(.restore(rows))
        #expect(status(newer, in: &restarted)?.state == .active)
        #expect(status(older, in: &restarted)?.state == .cancelled)
        #expect(status(older, in: &restarted)?.replacedBy == newer.rawValue)
    }

    @Test("a non-root caller sees and cancels only its own jobs; root sees all")
    func ownership() {
        var h = Harness()
        let mine = h.countdown(key: "k", seconds: 10, connection: 1)
        #expect(h.request(.status(StatusRequest(job: mine.id.rawValue)), connection: 2).errorCodes == [.unknownJob])
        #expect(h.request(.cancel(JobSelector(job: mine.id.rawValue)), connection: 2).errorCodes == [.unknownJob])
        #expect(h.request(.watch(JobSelector(job: mine.id.rawValue)), connection: 2).errorCodes == [.unknownJob])
        #expect(h.request(.wait(WaitRequest(job: mine.id.rawValue)), connection: 2).errorCodes == [.unknownJob])
        guard case .success(.jobs(let theirList)) = h.request(.list(ListRequest()), connection: 2).replies.first?.result,
            case .success(.jobs(let rootList)) = h.request(.list(ListRequest()), connection: 3).replies.first?.result
        else { return }
        #expect(theirList.jobs.isEmpty)
        #expect(rootList.jobs.map(\.id) == [mine.id.rawValue])
        #expect(h.request(.cancel(JobSelector(job: mine.id.rawValue)), connection: 3).errorCodes.isEmpty)
    }

    @Test("invalid values are refused with stable codes and change nothing", arguments: [
        (CountdownSpec(key: "k", durationMs: -5), SchedulerError.Code.badDuration),
        (CountdownSpec(key: "k", durationMs: 0), .badDuration),
        (CountdownSpec(key: "k", durationMs: Int64.max), .badDuration),
        (CountdownSpec(key: "k", durationMs: 1_000, tickMs: 0), .badDuration),
        (CountdownSpec(key: "k", durationMs: 1_000, tickMs: -1), .badDuration),
        (CountdownSpec(key: "k"), .missingField),
        (CountdownSpec(key: "k", durationMs: 1_000, until: WallTime(nanosecondsSinceEpoch: 0)), .conflictingFields),
        (CountdownSpec(key: "k", until: WallTime(nanosecondsSinceEpoch: 0)), .badDuration),
        (CountdownSpec(key: "", durationMs: 1_000), .badField),
        (CountdownSpec(key: "a\u{7}b", durationMs: 1_000), .badField),
        (CountdownSpec(key: "a\u{7F}", durationMs: 1_000), .badField),
        (CountdownSpec(key: "é\u{85}", durationMs: 1_000), .badField),
        (CountdownSpec(key: "k", durationMs: 1_000, scope: "\u{9F}"), .badField),
        (CountdownSpec(key: String(repeating: "x", count: 300), durationMs: 1_000), .badField),
    ])
    func invalidCountdowns(spec: CountdownSpec, code: SchedulerError.Code) {
        var h = Harness()
        let effects = h.request(.registerCountdown(spec))
        #expect(effects.errorCodes == [code])
        #expect(h.scheduler.activeJobCount == 0)
        #expect(h.persisted.isEmpty)
        #expect(h.armed == nil)
    }

    @Test("the job limit refuses with too_many_jobs")
    func jobLimit() {
        var h = Harness(configuration: { var c = SchedulerConfiguration(); c.maxActiveJobs = 2; return c }())
        _ = h.countdown(key: "a", seconds: 5)
        _ = h.countdown(key: "b", seconds: 5)
        #expect(h.request(.registerCountdown(CountdownSpec(key: "c", durationMs: 1_000))).errorCodes == [.tooManyJobs])
    }

    @Test("the summary counts jobs by kind and state, per caller")
    func summary() {
        var h = Harness()
        _ = h.countdown(key: "a", seconds: 5)
        let b = h.countdown(key: "b", seconds: 5, connection: 2)
        _ = h.request(.cancel(JobSelector(job: b.id.rawValue)), connection: 2)
        guard case .success(.summary(let own)) = h.request(.status(StatusRequest()), connection: 1).replies.first?.result,
            case .success(.summary(let all)) = h.request(.status(StatusRequest()), connection: 3).replies.first?.result
        else { return }
        #expect(own.jobs["countdown"]?["active"] == 1)
        #expect(own.jobs["countdown"]?["cancelled"] == 0)
        #expect(all.jobs["countdown"]?["active"] == 1)
        #expect(all.jobs["countdown"]?["cancelled"] == 1)
        #expect(all.connections == 3)
    }
}
