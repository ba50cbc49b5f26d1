import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let retention = 10 * second
private func header(_ id: String, kind: JobKind = .countdown, owner: UInt32 = 1000, key: String? = nil, scope: String? = nil) -> JobHeader {
    Fixture.header(id, kind: kind, owner: owner, key: key, scope: scope)
}

private extension JobTable {
    /// Adds a new active job with this header and a fresh machine of its kind.
    mutating func insert(_ header: JobHeader) {
        insert(Job(header: header, work: Fixture.work(of: header.kind)))
    }

    /// Ends a job and starts its retention, as the scheduler does for every end but a dead letter.
    mutating func endAndRetain(_ id: String, as state: JobState = .failed, at nanoseconds: Int64) {
        end(JobID(id), as: state, reason: nil, replacedBy: nil, at: reading(nanoseconds).wall)
        if state != .dead { retain(JobID(id), endedAt: at(nanoseconds)) }
    }

    /// The jobs to forget at `nanoseconds`, forgotten, as the scheduler does.
    mutating func forgetExpired(at nanoseconds: Int64, maxRetained: Int = 100, limit: Int = .max) -> [String] {
        let due = expired(at: at(nanoseconds), retention: retention, maxRetained: maxRetained, limit: limit).due
        for id in due { remove(id) }
        return due.map(\.rawValue)
    }

    /// How many of `kind`'s jobs in `state` `uid` may see.
    func count(_ kind: JobKind, _ state: JobState, visibleTo uid: UInt32) -> Int? {
        counts(visibleTo: Peer(uid: uid, pid: 1))[kind.rawValue]?[state.rawValue]
    }
}

@Suite("JobTable, alone")
struct JobTableTests {
    @Test("a key has one active holder per owner; ending it releases the key and the scope and moves the counts")
    func keyScopeAndCounts() {
        var table = JobTable()
        table.insert(header("cd_a", key: "k", scope: "s"))
        table.insert(header("cd_b", owner: 1001, key: "k", scope: "s"))
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("cd_a"))
        #expect(table.holder(ofKey: "k", owner: 1001) == JobID("cd_b"))
        #expect(Set(table.activeJobs(inScope: "s")) == [JobID("cd_a"), JobID("cd_b")])

        table.end(JobID("cd_a"), as: .expired, reason: nil, replacedBy: nil, at: Fixture.startWall)
        #expect(table.holder(ofKey: "k", owner: 1000) == nil)
        #expect(table.holder(ofKey: "k", owner: 1001) == JobID("cd_b"))
        #expect(Set(table.activeJobs(inScope: "s")) == [JobID("cd_b")])
        #expect(table.count(.countdown, .active, visibleTo: 1000) == 0)
        #expect(table.count(.countdown, .expired, visibleTo: 1000) == 1)
        #expect(table.liveJobs == 1)
    }

    @Test("reactivate takes the key back only when it is free, and a later end leaves the new holder's key")
    func reactivate() {
        var table = JobTable()
        table.insert(header("rq_old", kind: .request, key: "k", scope: "s"))
        table.end(JobID("rq_old"), as: .failed, reason: nil, replacedBy: nil, at: Fixture.startWall)
        table.insert(header("rq_new", kind: .request, key: "k"))
        table.reactivate(JobID("rq_old"))
        #expect(table[JobID("rq_old")]?.state == .active)
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("rq_new"))
        #expect(Set(table.activeJobs(inScope: "s")) == [JobID("rq_old")])
        #expect(table.count(.request, .failed, visibleTo: 1000) == 0)
        #expect(table.count(.request, .active, visibleTo: 1000) == 2)

        table.end(JobID("rq_old"), as: .failed, reason: nil, replacedBy: nil, at: Fixture.startWall)
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("rq_new"))
        table.end(JobID("rq_new"), as: .succeeded, reason: nil, replacedBy: nil, at: Fixture.startWall)
        table.reactivate(JobID("rq_old"))
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("rq_old"))
    }

    @Test("counts show a non-root peer only its own jobs, and root everything, every kind and state listed")
    func countsByPeer() {
        var table = JobTable()
        table.insert(header("cd_1"))
        table.insert(header("cd_2"))
        table.insert(header("pl_3", kind: .poll, owner: 1001))
        #expect(table.count(.countdown, .active, visibleTo: 1000) == 2)
        #expect(table.count(.poll, .active, visibleTo: 1000) == 0)
        #expect(table.count(.poll, .active, visibleTo: 1001) == 1)
        #expect(table.count(.countdown, .active, visibleTo: 1001) == 0)
        #expect(table.count(.countdown, .active, visibleTo: 0) == 2)
        #expect(table.count(.poll, .active, visibleTo: 0) == 1)
        let shown = table.counts(visibleTo: Peer(uid: 1000, pid: 1))
        #expect(shown.count == JobKind.allCases.count && shown.values.allSatisfy { $0.count == JobState.allCases.count })
    }

    @Test("retention forgets the oldest first, by time and by count")
    func retentionLimits() {
        var table = JobTable()
        for (index, id) in ["cd_a", "cd_b", "cd_c"].enumerated() {
            table.insert(header(id))
            table.endAndRetain(id, as: .expired, at: Int64(index) * second)
        }
        #expect(table.forgetExpired(at: 10 * second - 1) == [])
        #expect(table.forgetExpired(at: 11 * second) == ["cd_a", "cd_b"])
        #expect(table.forgetExpired(at: 11 * second) == [])

        var full = JobTable()
        for (index, id) in ["cd_a", "cd_b", "cd_c"].enumerated() {
            full.insert(header(id))
            full.endAndRetain(id, as: .expired, at: Int64(index) * second)
        }
        #expect(full.forgetExpired(at: 3 * second, maxRetained: 1) == ["cd_a", "cd_b"])
        #expect(full.count == 1)
    }

    @Test("retention skips a job retried since it ended, and a dead letter")
    func retentionSkipsRetriedAndDead() {
        var table = JobTable()
        table.insert(header("rq_retried", kind: .request))
        table.insert(header("rq_dead", kind: .request))
        table.endAndRetain("rq_retried", at: 0)
        table.endAndRetain("rq_dead", at: 0)
        table.reactivate(JobID("rq_retried"))
        table.reactivate(JobID("rq_dead"))
        table.end(JobID("rq_dead"), as: .dead, reason: nil, replacedBy: nil, at: Fixture.startWall)
        #expect(table.forgetExpired(at: 60 * second) == [])
        #expect(table.count == 2)
    }

    @Test("a job retried and ended again stays for the full retention from its last end")
    func retriedJobEndsAgain() {
        var table = JobTable()
        table.insert(header("rq_a", kind: .request))
        table.endAndRetain("rq_a", at: 0)
        table.reactivate(JobID("rq_a"))
        table.endAndRetain("rq_a", at: 8 * second)
        #expect(table.forgetExpired(at: 10 * second) == [])
        #expect(table.forgetExpired(at: 18 * second) == ["rq_a"])
    }

    @Test("the count limit counts jobs, not the ends of a job retried since")
    func retriedJobAndTheCountLimit() {
        var table = JobTable()
        for id in ["rq_a", "rq_b", "rq_c"] { table.insert(header(id, kind: .request)) }
        table.endAndRetain("rq_a", at: 0)
        table.reactivate(JobID("rq_a"))
        table.endAndRetain("rq_b", at: 1 * second)
        table.endAndRetain("rq_a", at: 2 * second)
        table.endAndRetain("rq_c", at: 3 * second)
        #expect(table.forgetExpired(at: 3 * second, maxRetained: 2) == ["rq_b"])
        #expect(table[JobID("rq_a")] != nil && table[JobID("rq_c")] != nil)
    }

    @Test("claimKey takes a free key at once and names the other holder of a taken one")
    func claimKey() {
        var table = JobTable()
        #expect(table.claimKey(for: header("cd_a", key: "k")) == nil)
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("cd_a"))
        #expect(table.claimKey(for: header("cd_b", key: "k")) == JobID("cd_a"))
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("cd_a"))
        #expect(table.claimKey(for: header("cd_c", owner: 1001, key: "k")) == nil)
        table.assignKey("k", owner: 1000, to: JobID("cd_b"))
        #expect(table.holder(ofKey: "k", owner: 1000) == JobID("cd_b"))
    }
}

@Suite("A job's machine is changed in its own kind's table only")
struct JobTableKindTests {
    @Test("polls' attempt logs go to the poll table and a request's report to the request table; the other kinds' tables stay empty")
    func noRoomElsewhere() throws {
        var h = Harness()
        for index in 0..<40 {
            var spec = pollSpec(every: 1_000, ephemeral: true, follow: false)
            spec.url = "https://api.example/jobs/\(index)"
            let poll = h.poll(spec)
            let send = try #require(poll.effects.sends.first)
            _ = h.answer(send, json: .remote(state: "running"))
        }
        #expect(h.scheduler.table.polls.count == 40)
        #expect(h.scheduler.table.polls[h.scheduler.table.polls.keys.first!]?.machine.log.entries.count == 1, "each poll logged its answer")
        #expect(h.scheduler.table.deliveries.capacity == 0, "the request table has no room made for polls")
        let hook = RequestSpec(method: "POST", url: "https://hooks.example/done", body: "{}", maxAttempts: 1)
        let (_, submitted) = h.submitted(
            SubmitSpec(
                request: RequestSpec(method: "POST", url: "https://api.example/orders", body: "{}", maxAttempts: 1), dedupeWindowMs: 0,
                ephemeral: true, onSuccess: hook))
        let order = try #require(submitted.sends.first)
        _ = h.handle(.httpFinished(order.job, attempt: order.attempt, .response(HTTPAnswer(status: 200))))
        #expect(h.scheduler.table.deliveries.count == 2, "the order and its report")
        #expect(h.scheduler.table.countdowns.capacity == 0 && h.scheduler.table.groups.capacity == 0, "nor the countdown and group tables for a report")
    }
}
