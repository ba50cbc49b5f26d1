import Foundation
@testable import ReqdCore
import ReqdProtocol
import Synchronization
import Testing
@testable import ReqdDaemon
@testable import ReqdStoreTestSupport

@Suite("The job store, on SQLite and on PostgreSQL")
struct JobStoreTests {
    private func record(_ id: String, key: String?, state: JobState = .active) -> JobRecord {
        JobRecord(
            id: id, owner: 1000, kind: .countdown, state: state, key: key, scope: "s",
            createdAt: WallTime(nanosecondsSinceEpoch: 1_000), endedAt: nil, reason: nil, replacedBy: nil,
            deadline: WallTime(nanosecondsSinceEpoch: 9_000_000_000), tickNanos: 1_000_000_000, lateByNanos: nil)
    }

    @Test("batches submitted together share one commit and report every barrier", arguments: StoreKind.allCases)
    func groupCommit(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let commits = Mutex<[[CommitToken]]>([])
        let store = try place.open { tokens, failure in
            #expect(failure == nil)
            commits.withLock { $0.append(tokens) }
        }
        for index in 0..<200 {
            var batch = StoreBatch()
            batch.changes = [.insert(record("cd_\(index)", key: "k\(index)"))]
            batch.barriers = [CommitToken(UInt64(index))]
            store.submit(batch)
        }
        store.flush()
        let reported = commits.withLock { $0 }
        #expect(reported.flatMap { $0 }.map(\.rawValue).sorted() == (0..<200).map(UInt64.init))
        #expect(reported.count < 200)
        #expect(try store.loadAll().count == 200)
    }

    @Test("on PostgreSQL, whose index allows one active row a key, an insert with a key supersedes the active row with that key in the same transaction")
    func insertSupersedes() throws {
        let place = StorePlace(.postgres)
        let store = try place.open { _, _ in }
        var batch = StoreBatch()
        batch.changes = [.insert(record("cd_old", key: "k")), .insert(record("cd_new", key: "k"))]
        store.submit(batch)
        store.flush()
        let rows = Dictionary(uniqueKeysWithValues: try store.loadAll().map { ($0.id, $0) })
        #expect(rows["cd_old"]?.state == .cancelled)
        #expect(rows["cd_old"]?.reason == .superseded)
        #expect(rows["cd_old"]?.replacedBy == "cd_new")
        #expect(rows["cd_new"]?.state == .active)
    }

    @Test("on SQLite the older active row with a key ends by its own change; a restore between the two commits ends it as that change would")
    func olderKeyedRowEndsByItsChange() throws {
        let place = StorePlace(.sqlite)
        let store = try place.open { _, _ in }
        var newer = record("cd_new", key: "k")
        newer.createdAt = WallTime(nanosecondsSinceEpoch: 2_000)
        var batch = StoreBatch()
        batch.changes = [.insert(record("cd_old", key: "k")), .insert(newer)]
        store.submit(batch)
        store.flush()
        let rows = try store.loadAll()
        #expect(rows.map(\.state) == [.active, .active], "the commit of the newer job alone, as a crash would leave it")

        let now = ClockReading(instant: Instant(nanoseconds: 1_000_000_000), wall: WallTime(nanosecondsSinceEpoch: 3_000))
        var scheduler = Scheduler(configuration: SchedulerConfiguration(), seed: 7, now: now)
        batch.changes = scheduler.handle(.restore(rows), at: now).compactMap { effect in
            if case .persist(let change) = effect { change } else { nil }
        }
        #expect(batch.changes.map(\.jobID) == ["cd_old"])
        store.submit(batch)
        store.flush()
        let restarted = Dictionary(uniqueKeysWithValues: try store.loadAll().map { ($0.id, $0) })
        #expect(restarted["cd_old"]?.state == .cancelled)
        #expect(restarted["cd_old"]?.reason == .superseded)
        #expect(restarted["cd_old"]?.replacedBy == "cd_new")
        #expect(restarted["cd_new"]?.state == .active)
    }

    @Test("records round-trip with every field", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        var ended = record("cd_e", key: nil, state: .expired)
        ended.endedAt = WallTime(nanosecondsSinceEpoch: 5)
        ended.lateByNanos = 42
        var batch = StoreBatch()
        batch.changes = [
            .insert(record("cd_a", key: "k")), .insert(record("cd_e", key: nil)), .progress("cd_e", ended.progress),
            .insert(record("cd_gone", key: nil)), Self.ended("cd_gone"), .delete("cd_gone"),
        ]
        store.submit(batch)
        store.close()
        let reopened = try place.open { _, _ in }
        let rows = try reopened.loadAll().sorted { $0.id < $1.id }
        #expect(rows == [record("cd_a", key: "k"), ended])
    }

    @Test("a new file migrates from version 0 to the current schema, without the index on keys since version 8; a newer file is refused")
    func migrations() throws {
        let directory = TemporaryDirectory()
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            #expect(try database.scalar("PRAGMA user_version") == 0)
            for step in 0..<7 { try database.execute(SQLiteSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 7")
            let keyIndex = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'jobs_active_key'"
            #expect(try database.scalar(keyIndex) == 1)
            try SQLiteSchema.migrate(database)
            #expect(try database.scalar("PRAGMA user_version") == Int64(SQLiteSchema.currentVersion))
            #expect(try database.scalar(keyIndex) == 0, "version 8 drops the index on (owner, key)")
            try database.execute("PRAGMA user_version = 99")
        }
        #expect {
            _ = try JobStore(directory: directory.path) { _, _ in }
        } throws: { error in
            (error as? DaemonError)?.code == .unsupportedStoreVersion
        }
    }

    private func pollRecord(_ id: String, polls: Int) -> JobRecord {
        var record = record(id, key: nil)
        record.kind = .poll
        record.deadline = nil
        record.tickNanos = nil
        record.detail.poll = PollRecord(
            settings: PollSettings(
                request: HTTPRequestSpec(method: "GET", url: "http://127.0.0.1:1/x"), everyNanos: 1_000_000_000,
                condition: "/state == \"done\"", progressPointer: "/progress", timeoutNanos: nil, deadline: nil, maxPolls: nil,
                maxFailures: 5),
            counters: PollCounters(polls: polls, failures: 0, progress: nil, lastStatus: nil, lastError: nil, lastStart: nil))
        return record
    }

    @Test("a poll's counters are updated in place and read back over its stored detail", arguments: StoreKind.allCases)
    func pollCounters(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        let counters = PollCounters(
            polls: 7, failures: 2, progress: 41.5, lastStatus: 503, lastError: "the server answered 503",
            lastStart: WallTime(nanosecondsSinceEpoch: 123_456_789))
        var batch = StoreBatch()
        batch.changes = [.insert(pollRecord("pl_a", polls: 0)), .pollCounters("pl_a", counters)]
        store.submit(batch)
        store.close()
        let reopened = try place.open { _, _ in }
        var expected = pollRecord("pl_a", polls: 0)
        expected.detail.poll?.counters = counters
        #expect(try reopened.loadAll() == [expected])

        // The poll's end writes its counters' columns too.
        var ended = pollRecord("pl_a", polls: 9)
        ended.state = .succeeded
        ended.endedAt = WallTime(nanosecondsSinceEpoch: 77)
        ended.detail.result = HTTPResult(status: 200, body: "{\"state\":\"done\"}", truncated: false)
        batch.changes = [.progress("pl_a", ended.progress)]
        reopened.submit(batch)
        reopened.flush()
        #expect(try reopened.loadAll() == [ended])
    }

    @Test("a version-2 file with a poll migrates and keeps the counters of its detail")
    func pollFromVersion2() throws {
        let directory = TemporaryDirectory()
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            for step in 0..<2 { try database.execute(SQLiteSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 2")
            // The detail exactly as version 2 wrote it: settings and counters in one flat object.
            let detail = """
                {"poll":{"request":{"method":"GET","url":"http://127.0.0.1:1/x","headers":[]},"every_ns":1000000000,
                "condition":"/state == \\"done\\"","progress_pointer":"/progress","max_failures":5,"polls":12,"failures":1,
                "progress":40,"last_status":200,"last_start":"1970-01-01T00:00:00.000000005Z"}}
                """
            try database.run(
                "INSERT INTO jobs (id, owner, kind, state, created_ns, detail) VALUES ('pl_old', 1000, 'poll', 'active', 1000, ?1)",
                [.text(detail)])
        }
        let store = try JobStore(directory: directory.path) { _, _ in }
        let rows = try store.loadAll()
        var expected = pollRecord("pl_old", polls: 12).detail.poll
        expected?.counters.failures = 1
        expected?.counters.progress = 40
        expected?.counters.lastStatus = 200
        expected?.counters.lastStart = WallTime(nanosecondsSinceEpoch: 5)
        #expect(rows.map(\.detail.poll) == [expected])
    }

    private static let pendingMember = MemberRecord(state: .pending, attempts: 0, lastStatus: nil, result: nil, error: nil)

    /// An active group of two pending members, each a GET.
    private func groupRecord(_ id: String, concurrency: Int) -> JobRecord {
        let settings = DeliverySettings(
            request: HTTPRequestSpec(method: "GET", url: "http://127.0.0.1:1/x"), maxAttempts: 1, backoffMinNanos: 1,
            backoffMaxNanos: 1, parent: nil)
        var group = record(id, key: nil)
        group.kind = .group
        group.deadline = nil
        group.tickNanos = nil
        group.detail.group = GroupRecord(
            settings: GroupSettings(members: [settings, settings], concurrency: concurrency, timeoutNanos: nil, deadline: nil, onComplete: nil),
            counters: GroupCounters(members: [Self.pendingMember, Self.pendingMember], spawned: nil))
        return group
    }

    @Test("a group member's end is one row of its own, read back over the group's detail and deleted with it", arguments: StoreKind.allCases)
    func groupMembers(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        let pending = Self.pendingMember
        let group = groupRecord("gr_a", concurrency: 1)
        let ended = MemberRecord(
            state: .failed, attempts: 1, lastStatus: 404, result: HTTPResult(status: 404, body: "no", truncated: false),
            error: "the server answered 404")
        var batch = StoreBatch()
        batch.changes = [.insert(group), .groupMember("gr_a", index: 1, ended)]
        store.submit(batch)
        store.close()
        let reopened = try place.open { _, _ in }
        #expect(try reopened.loadAll().first?.detail.group?.counters.members == [pending, ended])
        batch.changes = [Self.ended("gr_a"), .delete("gr_a"), .insert(group)]
        reopened.submit(batch)
        reopened.flush()
        #expect(try reopened.loadAll().first?.detail.group?.counters.members == [pending, pending], "the old member rows went with the job")
    }

    @Test("an ended group is read back as its end wrote it: the member rows written while it ran (a first start) do not count", arguments: StoreKind.allCases)
    func endedGroupKeepsItsEnd(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        let running = MemberRecord(state: .running, attempts: 1, lastStatus: nil, result: nil, error: nil)
        let succeeded = MemberRecord(
            state: .succeeded, attempts: 1, lastStatus: 200, result: HTTPResult(status: 200, body: "ok", truncated: false), error: nil)
        let group = groupRecord("gr_a", concurrency: 2)
        // Both start; the last member's end completes the group, written with the group's end only.
        let end = JobProgress(
            state: .succeeded, endedAt: WallTime(nanosecondsSinceEpoch: 2), reason: nil, replacedBy: nil, lateByNanos: nil, result: nil,
            error: nil, spawned: nil, counters: .group(GroupCounters(members: [succeeded, succeeded], spawned: nil)))
        var batch = StoreBatch()
        batch.changes = [
            .insert(group), .groupMember("gr_a", index: 0, running), .groupMember("gr_a", index: 1, running),
            .groupMember("gr_a", index: 0, succeeded), .progress("gr_a", end),
        ]
        store.submit(batch)
        store.close()
        let reopened = try place.open { _, _ in }
        defer { reopened.close() }
        let read = try #require(try reopened.loadAll().first)
        #expect(read.state == .succeeded)
        #expect(read.detail.group?.counters.members == [succeeded, succeeded])
    }

    /// Reads `id`'s attempt log from `store`, waiting for the store's answer.
    private func attempts(of id: String, in store: JobStore) -> [AttemptInfo]? {
        let read = Mutex<[AttemptInfo]??>(nil)
        store.attempts(of: id) { attempts in read.withLock { $0 = .some(attempts) } }
        store.flush()
        return read.withLock { $0 } ?? nil
    }

    @Test("a job's attempts: the last 5 in the order written, a timed-out one's address set later, kept across a reopen, a retried job's new attempts after the old, deleted with the job", arguments: StoreKind.allCases)
    func attemptLog(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        func attempt(_ number: Int) -> AttemptInfo {
            AttemptInfo(
                number: number, startedAt: WallTime(nanosecondsSinceEpoch: Int64(10 - number) * 1_000_000_000), durationMs: 1.5,
                address: number == 7 ? nil : "127.0.0.1:80", status: number == 7 ? nil : 503, error: number == 7 ? "no answer" : nil,
                headers: ["Retry-After: \(number)"])
        }
        var batch = StoreBatch()
        batch.changes = [.insert(requestRecord("rq_a"))] + (1...7).map { StoreChange.attempt("rq_a", attempt($0)) }
        batch.changes.append(.attemptAddress("rq_a", number: 6, address: "192.0.2.1:1"))
        batch.changes.append(.attemptAddress("rq_a", number: 2, address: "192.0.2.2:2"))
        batch.changes.append(.attemptAddress("rq_a", number: 7, address: "192.0.2.7:443"))
        store.submit(batch)
        store.close()
        let reopened = try place.open { _, _ in }
        // As a daemon does at start: on PostgreSQL, the rows it loads are the ones it may change.
        #expect(try reopened.loadAll().map(\.id) == ["rq_a"])
        let log = try #require(attempts(of: "rq_a", in: reopened))
        #expect(log.map(\.number) == [3, 4, 5, 6, 7], "the last 5 in the order written, although the wall clock ran backwards")
        #expect(log.map(\.address) == ["127.0.0.1:80", "127.0.0.1:80", "127.0.0.1:80", "127.0.0.1:80", "192.0.2.7:443"],
            "only an attempt logged without an address takes one")
        #expect(log.last?.error == "no answer" && log.first?.headers == ["Retry-After: 3"])
        #expect(attempts(of: "rq_other", in: reopened) == [])
        // `retry` of a dead job: its numbers start again at 1, after the earlier run's.
        var retried = StoreBatch()
        retried.changes = [.attempt("rq_a", attempt(1)), .attempt("rq_a", attempt(2))]
        reopened.submit(retried)
        #expect(attempts(of: "rq_a", in: reopened)?.map(\.number) == [5, 6, 7, 1, 2])
        var deletion = StoreBatch()
        deletion.changes = [Self.ended("rq_a"), .delete("rq_a")]
        reopened.submit(deletion)
        #expect(attempts(of: "rq_a", in: reopened) == [])
    }

    @Test("no attempt or member row without its job's row: one for a job never written, or deleted in the same batch, is not made; one staged before its job's insert is", arguments: StoreKind.allCases)
    func noRowsWithoutTheirJob(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        let attempt = AttemptInfo(
            number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, address: "127.0.0.1:80", status: 200, error: nil,
            headers: [])
        let member = MemberRecord(state: .succeeded, attempts: 1, lastStatus: 200, result: nil, error: nil)
        var batch = StoreBatch()
        // A spawned job whose insert failed, then ended: its attempt is staged alone; so is a member of a gone group.
        batch.changes = [.attempt("rq_unstored", attempt), .attemptAddress("rq_unstored", number: 1, address: "192.0.2.1:1")]
        batch.changes += [.groupMember("gr_gone", index: 0, member)]
        // A job's first attempt is staged before the insert a failed commit left for later.
        batch.changes += [.attempt("rq_late", attempt), .insert(requestRecord("rq_late"))]
        // An attempt that comes with its job's end and delete.
        batch.changes += [.insert(requestRecord("rq_gone"))]
        store.submit(batch)
        var ending = StoreBatch()
        ending.changes = [.attempt("rq_gone", attempt), Self.ended("rq_gone"), .delete("rq_gone")]
        store.submit(ending)
        store.flush()
        #expect(attempts(of: "rq_late", in: store)?.map(\.number) == [1])
        #expect(attempts(of: "rq_unstored", in: store) == [])
        #expect(attempts(of: "rq_gone", in: store) == [])
        store.close()
        #expect(try place.rows(in: "attempts") == 1)
        #expect(try place.rows(in: "group_members") == 0)
    }

    @Test("a spawned job whose insert failed is written by the next commit that holds, with its later changes and attempts, beside its parent's end that names it; a refused registration's insert is not")
    func spawnedRowFollowsItsParent() throws {
        let directory = TemporaryDirectory()
        let backend = FailingBackend(try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false))
        let store = JobStore(backend: backend) { _, _ in }
        func commit(_ changes: [StoreChange], failing: Bool = false) {
            backend.commit(changes, in: store, failing: failing)
        }
        let attempt = AttemptInfo(
            number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, address: nil, status: 503, error: nil, headers: [])
        var spawned = requestRecord("rq_x")
        spawned.detail.request?.settings.parent = "cd_parent"
        commit([.insert(record("cd_parent", key: nil))])
        // The countdown expires and starts its on_expire job; a registration shares the commit,
        // which fails.
        let expired = JobProgress(
            state: .expired, endedAt: WallTime(nanosecondsSinceEpoch: 2), reason: nil, replacedBy: nil, lateByNanos: 0, result: nil,
            error: nil, spawned: "rq_x", counters: .none)
        commit([.progress("cd_parent", expired), .insert(spawned), .insert(requestRecord("rq_refused"))], failing: true)
        // The spawned job runs anyway: its first attempt and its planned retry fail to commit too.
        let retrying = JobProgress(
            state: .active, endedAt: nil, reason: nil, replacedBy: nil, lateByNanos: nil, result: nil, error: nil, spawned: nil,
            counters: .delivery(DeliveryCounters(attempts: 1, nextAttempt: WallTime(nanosecondsSinceEpoch: 5), lastStatus: 503, lastError: nil)))
        commit([.attempt("rq_x", attempt), .progress("rq_x", retrying)], failing: true)
        #expect(attempts(of: "rq_x", in: store)?.map(\.number) == [1], "shown from what waits to be written")
        // Another job's commit holds, and carries all that waited. The spawned job needs no
        // change of its own for its row to be written.
        commit([.insert(record("cd_other", key: nil))])
        store.close()
        let reopened = JobStore(backend: try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false)) { _, _ in }
        defer { reopened.close() }
        let rows = Dictionary(uniqueKeysWithValues: try reopened.loadAll().map { ($0.id, $0) })
        #expect(rows["cd_parent"]?.state == .expired)
        #expect(rows["cd_parent"]?.detail.spawned == "rq_x")
        let written = try #require(rows["rq_x"], "the job its parent's end names is on disk")
        #expect(written.state == .active)
        #expect(written.detail.request?.counters.attempts == 1, "its later progress is folded into its row")
        #expect(written.detail.request?.settings.parent == "cd_parent")
        #expect(rows["rq_refused"] == nil, "a registration refused through its barrier never reaches the disk")
        #expect(try SQLiteDatabase(path: directory.path + "/reqd.sqlite3").scalar("SELECT count(*) FROM attempts WHERE job = 'rq_x'") == 1)
    }

    @Test("a wait whose job's row is gone before its end is read is told so (waitedJobGone), not left for a survey that never finds it")
    func settledWaitOfAGoneRow() throws {
        let directory = TemporaryDirectory()
        let store = try JobStore(directory: directory.path) { _, _ in }
        defer { store.close() }
        var heard: [SchedulerEvent] = []
        store.queue.sync { store.settleWait("rq_gone") { heard.append($0) } }
        #expect(heard.count == 1)
        #expect(heard.first.map { if case .waitedJobGone(let id) = $0 { id == JobID("rq_gone") } else { false } } == true, "\(heard)")
    }

    @Test("a clean stop writes the change a failed commit left, once the disk is back, though nothing else came since")
    func closeWritesWhatAFailedCommitLeft() throws {
        let directory = TemporaryDirectory()
        let backend = FailingBackend(try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false))
        let store = JobStore(backend: backend) { _, _ in }
        backend.commit([.insert(record("cd_a", key: nil))], in: store, failing: false)
        backend.commit([Self.ended("cd_a")], in: store, failing: true)
        backend.failing = false
        store.close()
        let reopened = JobStore(backend: try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false)) { _, _ in }
        #expect(try reopened.loadAll().first { $0.id == "cd_a" }?.state == .cancelled, "the end is on disk")
        reopened.close()
    }

    @Test("a batch no reply waits for waits for the next commit that one does, and goes in it; a read or a flush writes it first; with no delay it commits at once")
    func settledChangesShareACommit() throws {
        let directory = TemporaryDirectory()
        let backend = FailingBackend(try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false))
        let committed = DispatchSemaphore(value: 0)
        let reported = Mutex<[[CommitToken]]>([])
        let store = JobStore(backend: backend, commitDelayNanos: 3_600_000_000_000) { tokens, _ in
            reported.withLock { $0.append(tokens) }
            committed.signal()
        }
        func submit(_ changes: [StoreChange], barrier: UInt64? = nil) {
            var batch = StoreBatch()
            batch.changes = changes
            batch.barriers = barrier.map { [CommitToken($0)] } ?? []
            store.submit(batch)
        }
        let rows = { () throws -> Int64 in try SQLiteDatabase(path: directory.path + "/reqd.sqlite3").scalar("SELECT count(*) FROM jobs") }
        submit([.insert(record("cd_quiet", key: nil))])
        store.queue.sync {}
        #expect(backend.transactions.isEmpty, "no commit of its own before the delay")
        submit([.insert(record("cd_waited", key: nil))], barrier: 7)
        #expect(committed.wait(timeout: .now() + 30) == .success)
        #expect(store.queue.sync { backend.transactions.count } == 1, "one commit for both")
        #expect(reported.withLock { $0 } == [[CommitToken(7)]])
        #expect(try rows() == 2)
        submit([.attempt("cd_waited", AttemptInfo(number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 5), durationMs: 1, status: 200))])
        let read = Mutex<[AttemptInfo]?>(nil)
        let answered = DispatchSemaphore(value: 0)
        store.attempts(of: "cd_waited") { attempts in
            read.withLock { $0 = attempts }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(read.withLock { $0 }?.map(\.number) == [1], "a read comes after the batches submitted before it")
        #expect(store.queue.sync { backend.transactions.count } == 2)
        submit([Self.ended("cd_quiet")])
        store.flush()
        #expect(backend.transactions.count == 3, "a flush writes what waits")
        #expect(try store.loadAll().first { $0.id == "cd_quiet" }?.state == .cancelled)
        store.close()

        let promptly = DispatchSemaphore(value: 0)
        let prompt = JobStore(backend: FailingBackend(try SQLiteStoreBackend(directory: directory.path, checkIntegrity: false))) { _, _ in
            promptly.signal()
        }
        var batch = StoreBatch()
        batch.changes = [.insert(record("cd_prompt", key: nil))]
        prompt.submit(batch)
        #expect(promptly.wait(timeout: .now() + 30) == .success, "committed without a flush")
        #expect(try rows() == 3)
        prompt.close()
    }

    @Test("a version-6 file's attempt and member rows without a job are dropped as it migrates; a job's own are kept")
    func orphansFromVersion6() throws {
        let directory = TemporaryDirectory()
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            for step in 0..<6 { try database.execute(SQLiteSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 6")
            try database.execute(
                """
                INSERT INTO jobs (id, owner, kind, state, key, scope, created_ns, deadline_ns, tick_ns)
                VALUES ('cd_v6', 1000, 'countdown', 'active', 'k', 's', 1000, 9000000000, 1000000000);
                INSERT INTO attempts (job, seq, detail) VALUES ('cd_v6', 1, '{}'), ('rq_orphan', 1, '{}'), ('rq_orphan', 2, '{}');
                INSERT INTO group_members (job, idx, detail) VALUES ('cd_v6', 0, '{}'), ('gr_orphan', 0, '{}');
                """)
        }
        let store = try JobStore(directory: directory.path) { _, _ in }
        #expect(try store.loadAll().map(\.id) == ["cd_v6"])
        store.close()
        let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
        #expect(try database.scalar("PRAGMA user_version") == Int64(SQLiteSchema.currentVersion))
        #expect(try database.scalar("SELECT count(*) FROM attempts WHERE job = 'cd_v6'") == 1)
        #expect(try database.scalar("SELECT count(*) FROM group_members WHERE job = 'cd_v6'") == 1)
        #expect(try database.scalar("SELECT count(*) FROM attempts") == 1)
        #expect(try database.scalar("SELECT count(*) FROM group_members") == 1)
    }

    /// Ends a job, as the daemon does before it deletes one: on PostgreSQL a delete leaves an
    /// active row, which a retry on this daemon may have made active again meanwhile.
    private static func ended(_ id: String) -> StoreChange {
        .progress(
            id,
            JobProgress(
                state: .cancelled, endedAt: WallTime(nanosecondsSinceEpoch: 1), reason: .requested, replacedBy: nil, lateByNanos: nil,
                result: nil, error: nil, spawned: nil, counters: .none))
    }

    private func requestRecord(_ id: String) -> JobRecord {
        var request = record(id, key: nil)
        request.kind = .request
        request.deadline = nil
        request.tickNanos = nil
        request.detail.request = DeliveryRecord(
            settings: DeliverySettings(
                request: HTTPRequestSpec(method: "POST", url: "http://127.0.0.1:1/hook"), maxAttempts: 5,
                backoffMinNanos: 1_000_000_000, backoffMaxNanos: 60_000_000_000, parent: nil),
            counters: DeliveryCounters(attempts: 0, nextAttempt: nil, lastStatus: nil, lastError: nil))
        return request
    }

    @Test("a retry and an end update only the changing columns: the row's settings are never written again")
    func progressUpdatesColumns() throws {
        let directory = TemporaryDirectory()
        let store = try JobStore(directory: directory.path) { _, _ in }
        var batch = StoreBatch()
        batch.changes = [.insert(requestRecord("rq_a")), .insert(record("cd_a", key: "k"))]
        store.submit(batch)
        store.close()
        func columns() throws -> [String] {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            var rows: [String] = []
            try database.run("SELECT id, detail, key, scope, created_ns, deadline_ns FROM jobs ORDER BY id", []) { row in
                rows.append([0, 1, 2, 3].map { row.text($0) ?? "-" }.joined(separator: "|") + "|\(row.integer(4) ?? -1)|\(row.integer(5) ?? -1)")
            }
            // Corrupt the settings on disk: a full rewrite from memory would put them back.
            try database.execute("UPDATE jobs SET detail = replace(detail, '/hook', '/HOOK')")
            return rows
        }
        let written = try columns()

        let retrying = JobProgress(
            state: .active, endedAt: nil, reason: nil, replacedBy: nil, lateByNanos: nil,
            result: HTTPResult(status: 503, body: "busy", truncated: false), error: nil, spawned: nil,
            counters: .delivery(
                DeliveryCounters(
                    attempts: 1, nextAttempt: WallTime(nanosecondsSinceEpoch: 5_000), lastStatus: 503, lastError: "the server answered 503")))
        var dead = retrying
        dead.state = .dead
        dead.endedAt = WallTime(nanosecondsSinceEpoch: 9_000)
        dead.error = "gave up after 5 attempts"
        dead.counters = .delivery(DeliveryCounters(attempts: 5, nextAttempt: nil, lastStatus: 503, lastError: "the server answered 503"))
        var fired = record("cd_a", key: "k").progress
        fired.state = .expired
        fired.endedAt = WallTime(nanosecondsSinceEpoch: 9_000_000_100)
        fired.lateByNanos = 100
        fired.spawned = "rq_spawned"

        let reopened = try JobStore(directory: directory.path) { _, _ in }
        batch.changes = [.progress("rq_a", retrying), .progress("rq_a", dead), .progress("cd_a", fired)]
        reopened.submit(batch)
        reopened.close()
        #expect(try columns().map { $0.replacingOccurrences(of: "/HOOK", with: "/hook") } == written)

        var expectedRequest = requestRecord("rq_a")
        expectedRequest.apply(dead)
        expectedRequest.detail.request?.settings.request.url = "http://127.0.0.1:1/HOOK"
        var expectedCountdown = record("cd_a", key: "k")
        expectedCountdown.apply(fired)
        let rows = try JobStore(directory: directory.path) { _, _ in }.loadAll().sorted { $0.id < $1.id }
        #expect(rows == [expectedCountdown, expectedRequest])
        #expect(rows.last?.detail.result?.body == "busy")
        #expect(rows.last?.detail.request?.counters.attempts == 5)
        #expect(rows.first?.detail.spawned == "rq_spawned")
    }

    @Test("a schedule's counters are read back from their column, over the ones its detail was inserted with", arguments: StoreKind.allCases)
    func scheduleCounters(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        var schedule = record("sc_a", key: "nightly")
        schedule.kind = .schedule
        schedule.deadline = nil
        schedule.tickNanos = nil
        schedule.detail.schedule = ScheduleRecord(
            settings: ScheduleSettings(
                calendar: "*-06-15 03:00:00", cron: nil, everyNanos: nil, anchor: nil, tz: "UTC", overlap: .skip, catchUp: .one,
                randomizedDelayNanos: 0, fixedDelay: false,
                request: DeliverySettings(
                    request: HTTPRequestSpec(method: "POST", url: "http://127.0.0.1:1/hook"), maxAttempts: 3, backoffMinNanos: 1,
                    backoffMaxNanos: 2, parent: nil)),
            counters: ScheduleCounters(
                due: WallTime(nanosecondsSinceEpoch: 5_000_000_000), delayNanos: 0, lastElapse: nil, lastLateByNanos: nil, runs: 0, skipped: 0,
                missed: 0, running: nil, lastRun: nil, lastOutcome: nil, queued: false, paused: false))
        var progress = schedule.progress
        progress.counters = .schedule(
            ScheduleCounters(
                due: WallTime(nanosecondsSinceEpoch: 9_000_000_000), delayNanos: 7, lastElapse: WallTime(nanosecondsSinceEpoch: 5_000_000_000),
                lastLateByNanos: 12, runs: 1, skipped: 2, missed: 3, running: "rq_run", lastRun: "rq_run", lastOutcome: .succeeded,
                queued: true, paused: true))
        var batch = StoreBatch()
        batch.changes = [.insert(schedule), .progress("sc_a", progress)]
        store.submit(batch)
        store.close()
        var expected = schedule
        expected.apply(progress)
        #expect(expected != schedule)
        #expect(try place.open { _, _ in }.loadAll() == [expected])
    }

    @Test("a version-4 file's ended job, whose row was rewritten in full, migrates and keeps its end from its detail")
    func endedFromVersion4() throws {
        let directory = TemporaryDirectory()
        var ended = requestRecord("rq_old")
        ended.apply(
            JobProgress(
                state: .failed, endedAt: WallTime(nanosecondsSinceEpoch: 9_000), reason: nil, replacedBy: nil, lateByNanos: nil,
                result: HTTPResult(status: 400, body: "bad", truncated: false), error: "the server answered 400", spawned: nil,
                counters: .delivery(DeliveryCounters(attempts: 1, nextAttempt: nil, lastStatus: 400, lastError: "the server answered 400"))))
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            for step in 0..<4 { try database.execute(SQLiteSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 4")
            // The row as version 4 wrote a job's end: everything in `detail`.
            let detail = String(decoding: try CompactJSONEncoder().encode(ended.detail), as: UTF8.self)
            try database.run(
                """
                INSERT INTO jobs (id, owner, kind, state, scope, created_ns, ended_ns, detail)
                VALUES ('rq_old', 1000, 'request', 'failed', 's', 1000, 9000, ?1)
                """, [.text(detail)])
        }
        let store = try JobStore(directory: directory.path) { _, _ in }
        #expect(try store.loadAll() == [ended])
    }

    @Test("rows are read in chunks of the size asked for, each with the count of all, every chunk handed over before load returns; empty stores give one empty chunk", arguments: StoreKind.allCases)
    func chunks(kind: StoreKind) throws {
        let place = StorePlace(kind)
        let store = try place.open { _, _ in }
        let chunks = Mutex<[(ids: [String], total: Int)]>([])
        try store.load(chunkSize: 2) { chunk, total in chunks.withLock { $0.append((chunk.map(\.id), total)) } }
        var seen = chunks.withLock { $0 }
        #expect(seen.map(\.ids) == [[]] && seen.map(\.total) == [0])
        var batch = StoreBatch()
        batch.changes = (0..<5).map { .insert(record("cd_\($0)", key: nil)) }
        store.submit(batch)
        store.flush()
        chunks.withLock { $0 = [] }
        try store.load(chunkSize: 2) { chunk, total in chunks.withLock { $0.append((chunk.map(\.id), total)) } }
        seen = chunks.withLock { $0 }
        // Chunks made on other threads may come in any order.
        #expect(seen.map(\.ids.count).sorted() == [1, 2, 2])
        #expect(Set(seen.flatMap(\.ids)) == Set((0..<5).map { "cd_\($0)" }))
        #expect(seen.allSatisfy { $0.total == 5 })
    }

    @Test("a version-1 file with a countdown migrates through every version and keeps its row")
    func fromVersion1() throws {
        let directory = TemporaryDirectory()
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            try database.execute(SQLiteSchema.migrations[0])
            try database.execute("PRAGMA user_version = 1")
            try database.execute(
                """
                INSERT INTO jobs (id, owner, kind, state, key, scope, created_ns, deadline_ns, tick_ns)
                VALUES ('cd_v1', 1000, 'countdown', 'active', 'k', 's', 1000, 9000000000, 1000000000)
                """)
        }
        let store = try JobStore(directory: directory.path) { _, _ in }
        #expect(try store.loadAll() == [record("cd_v1", key: "k")])
        store.close()
        let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
        #expect(try database.scalar("PRAGMA user_version") == Int64(SQLiteSchema.currentVersion))
        #expect(try database.scalar("SELECT count(*) FROM group_members") == 0)
    }
}
