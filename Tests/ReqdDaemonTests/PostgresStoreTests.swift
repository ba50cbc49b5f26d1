import Foundation
import Logging
@testable import ReqdCore
import ReqdProtocol
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("The PostgreSQL store: its cluster, its schema, its keys, a server that restarts")
struct PostgresStoreTests {
    private func countdown(_ id: String, key: String?) -> JobRecord {
        JobRecord(
            id: id, owner: 1000, kind: .countdown, state: .active, key: key, scope: nil,
            createdAt: WallTime(nanosecondsSinceEpoch: 1_000), endedAt: nil, reason: nil, replacedBy: nil,
            deadline: WallTime(nanosecondsSinceEpoch: 9_000_000_000), tickNanos: 1_000_000_000, lateByNanos: nil)
    }

    private func open(
        _ cluster: String, leaseNanos: Int64 = 15_000_000_000,
        onCommit: @escaping @Sendable ([CommitToken], String?) -> Void = { _, _ in }
    ) throws -> JobStore {
        JobStore(
            backend: try PostgresStoreBackend(
                address: try StorePlace.postgresAddress(), password: nil, cluster: cluster, leaseNanos: leaseNanos,
                logger: Logger(label: "reqd-test")),
            onCommit: onCommit)
    }

    /// Waits up to 10 s for `condition`, checking every 50 ms.
    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// Makes the commits of `event` (`INSERT ON jobs`) in the cluster's schema fail as they
    /// commit, after the server answered their statement, as a server stopped at that instant
    /// would roll them back: a check deferred to the commit fails there. Drop the trigger
    /// `refuse` to undo it.
    private func refuseAtCommit(_ cluster: String, _ event: String) throws -> TestPostgres {
        let server = try TestPostgres.shared()
        let table = event.split(separator: " ").last.map(String.init) ?? ""
        _ = try server.psql(
            """
            CREATE OR REPLACE FUNCTION reqd_\(cluster).refuse() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'refused at commit'; END$$;
            CREATE CONSTRAINT TRIGGER refuse AFTER \(event.replacingOccurrences(of: " ON \(table)", with: "")) ON reqd_\(cluster).\(table)
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION reqd_\(cluster).refuse();
            """)
        return server
    }

    @Test("a lease renewal counts only once the server has committed it: one that fails as it commits throws")
    func renewalFailingAtCommit() throws {
        let cluster = TestPostgres.clusterName()
        let backend = try PostgresStoreBackend(
            address: try StorePlace.postgresAddress(), password: nil, cluster: cluster, leaseNanos: 15_000_000_000,
            logger: Logger(label: "reqd-test"))
        defer { backend.close() }
        try backend.lease.renew()
        let server = try refuseAtCommit(cluster, "UPDATE ON daemons")
        #expect(throws: DaemonError.self) { try backend.lease.renew() }
        _ = try server.psql("DROP TRIGGER refuse ON reqd_\(cluster).daemons")
        try backend.lease.renew()
    }

    @Test("a commit is reported done only once the server has committed it: one that fails as it commits (a deferred check) refuses its registrations and leaves no row, as a script and as a block", arguments: [1, 150])
    func failureAtCommitRefuses(registrations: Int) throws {
        let cluster = TestPostgres.clusterName()
        let failures = Mutex<[String?]>([])
        let store = try open(cluster) { _, failure in failures.withLock { $0.append(failure) } }
        defer { store.close() }
        let server = try refuseAtCommit(cluster, "INSERT ON jobs")
        var batch = StoreBatch()
        batch.changes = (0..<registrations).map { .insert(countdown("cd_\($0)", key: nil)) }
        batch.barriers = [CommitToken(1)]
        store.submit(batch)
        store.flush()
        let reported = failures.withLock { $0 }
        #expect(reported.count == 1)
        #expect(reported.first??.contains("refused at commit") == true, "\(reported)")
        #expect(try server.psql("SELECT count(*) FROM reqd_\(cluster).jobs") == "0\n")
        // With the check gone, the next commit holds.
        _ = try server.psql("DROP TRIGGER refuse ON reqd_\(cluster).jobs")
        store.submit(batch)
        store.flush()
        #expect(failures.withLock { $0 }.last == .some(nil))
        #expect(try server.psql("SELECT count(*) FROM reqd_\(cluster).jobs") == "\(registrations)\n")
    }

    @Test("two daemons share a cluster: each loads only the rows it holds, and when one leaves, the other claims its rows; another cluster in the same database sees none of them")
    func daemonsShareCluster() throws {
        let cluster = TestPostgres.clusterName()
        let first = try open(cluster)
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_a", key: nil))]
        first.submit(batch)
        first.flush()
        let second = try open(cluster, leaseNanos: 1_500_000_000)
        defer { second.close() }
        #expect(try second.loadAll().isEmpty, "a live daemon's rows are its own")
        let claimed = Mutex<[[String]]>([])
        second.keepLease(claimed: { records in claimed.withLock { $0.append(records.map(\.id)) } }, lost: { _ in Issue.record("lease lost") })
        let other = try open(TestPostgres.clusterName())
        #expect(try other.loadAll().isEmpty)
        other.close()
        usleep(700_000)
        #expect(claimed.withLock { $0.isEmpty }, "nothing is claimed while the first daemon is there")
        first.close()
        #expect(eventually { claimed.withLock { $0 } == [["cd_a"]] }, "the next renewal finds the first daemon gone and claims its row")
        let server = try TestPostgres.shared()
        #expect(try server.psql("SELECT count(*) FROM reqd_\(cluster).daemons") == "1\n", "the first daemon's row left with it")
    }

    /// Asks `store` a cluster query and waits for its answer.
    private func ask(_ store: JobStore, _ operation: ClusterQuery.Operation, uid: UInt32 = 1000) -> ClusterAnswer? {
        let answer = Mutex<ClusterAnswer?>(nil)
        store.ask(ClusterQuery(connection: ConnectionID(1), requestID: .number(1), uid: uid, operation: operation)) { got in
            answer.withLock { $0 = got }
        }
        store.flush()
        _ = eventually { answer.withLock { $0 } != nil }
        return answer.withLock { $0 }
    }

    @Test("a cancel from another daemon stands: its holder may write the same end over it, but neither another end nor a running job's progress; another uid cancels nothing")
    func cancelElsewhereStands() throws {
        let cluster = TestPostgres.clusterName()
        let holder = try open(cluster)
        defer { holder.close() }
        let other = try open(cluster)
        defer { other.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_x", key: "tea"))]
        holder.submit(batch)
        holder.flush()
        let server = try TestPostgres.shared()
        func row() throws -> String { try server.psql("SELECT state, reason, late_by_ns FROM reqd_\(cluster).jobs WHERE id = 'cd_x'") }

        #expect(ask(other, .cancel(JobSelector(job: "cd_x")), uid: 1001) == .cancelled([], found: false), "another uid's job is not found")
        #expect(ask(other, .cancel(JobSelector(key: "tea"))) == .cancelled(["cd_x"], found: true))
        #expect(try row() == "cancelled|requested|\n")
        #expect(ask(other, .cancel(JobSelector(job: "cd_x"))) == .cancelled([], found: true), "an ended job is found and cancels nothing")
        func progress(_ state: JobState, reason: EventReason?, lateBy: Int64?) {
            var batch = StoreBatch()
            batch.changes = [
                .progress(
                    "cd_x",
                    JobProgress(
                        state: state, endedAt: state == .active ? nil : WallTime(nanosecondsSinceEpoch: 5_000), reason: reason, replacedBy: nil,
                        lateByNanos: lateBy, result: nil, error: nil, spawned: nil, counters: .none))
            ]
            holder.submit(batch)
            holder.flush()
        }
        progress(.active, reason: nil, lateBy: nil)
        #expect(try row() == "cancelled|requested|\n", "a running job's progress does not bring it back")
        progress(.expired, reason: nil, lateBy: 7)
        #expect(try row() == "cancelled|requested|\n", "nor does another end replace it")
        progress(.cancelled, reason: .requested, lateBy: 9)
        #expect(try row() == "cancelled|requested|9\n", "the holder's own cancel writes its counters")
        if case .found(let record)? = ask(other, .status(job: "cd_x", attempts: true)) {
            #expect(record?.state == .cancelled && record?.attempts == [])
        } else {
            Issue.record("status found nothing")
        }
        #expect(ask(other, .retry(job: "cd_x")).map { if case .retried(_, taken: false) = $0 { true } else { false } } == true, "a countdown is not retried")
    }

    @Test("a wait on a job another daemon holds leaves a waits row until its end is read: a lost notice is made up by settling the ended waits, which lets the rows go")
    func waitsSettle() throws {
        let cluster = TestPostgres.clusterName()
        let holder = try open(cluster)
        defer { holder.close() }
        let waiter = try open(cluster)
        defer { waiter.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_w", key: nil))]
        holder.submit(batch)
        holder.flush()
        let server = try TestPostgres.shared()
        func waits() throws -> String { try server.psql("SELECT count(*) FROM reqd_\(cluster).waits") }
        // The waiter does not listen, as if its connection were down when the notice came.
        #expect(ask(waiter, .wait(job: "cd_w")).map { if case .found(let record) = $0 { record?.state == .active } else { false } } == true)
        #expect(try waits() == "1\n")
        let settled = Mutex<[SchedulerEvent]>([])
        waiter.queue.sync { waiter.settleWaits { event in settled.withLock { $0.append(event) } } }
        #expect(try settled.withLock { $0.isEmpty } && waits() == "1\n", "an active job's wait stays")
        batch.changes = [
            .progress(
                "cd_w",
                JobProgress(
                    state: .expired, endedAt: WallTime(nanosecondsSinceEpoch: 9_000), reason: nil, replacedBy: nil, lateByNanos: 3,
                    result: nil, error: nil, spawned: nil, counters: .none))
        ]
        holder.submit(batch)
        holder.flush()
        #expect(try waits() == "1\n", "the end's notice did not let the row go")
        waiter.queue.sync { waiter.settleWaits { event in settled.withLock { $0.append(event) } } }
        #expect(try waits() == "0\n", "the waits row went once its end was read")
        let ended = settled.withLock { $0 }.compactMap { event -> JobRecord? in if case .waitedJobEnded(let record) = event { record } else { nil } }
        #expect(ended.map(\.id) == ["cd_w"] && ended.first?.state == .expired)
    }

    @Test("a daemon that leaves tells the others, which claim its rows at once rather than at their next renewal")
    func leaveWakesOthers() throws {
        let cluster = TestPostgres.clusterName()
        let first = try open(cluster)
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_left", key: nil))]
        first.submit(batch)
        first.flush()
        // The default lease: the next renewal is 5 s away.
        let second = try open(cluster)
        defer { second.close() }
        let claimed = Mutex<[String]>([])
        second.keepLease(claimed: { records in claimed.withLock { $0 += records.map(\.id) } }, lost: { _ in Issue.record("lease lost") })
        usleep(200_000)
        let left = DispatchTime.now().uptimeNanoseconds
        first.close()
        #expect(eventually { claimed.withLock { $0 } == ["cd_left"] })
        let took = (DispatchTime.now().uptimeNanoseconds - left) / 1_000_000
        #expect(took < 2_000, "claimed \(took) ms after the first daemon left, well before the renewal 5 s on")
    }

    @Test("when a row is due: a countdown at its deadline, a request at its next attempt, a schedule at its next elapse unless its run is in flight or queued or it is paused; a poll, a group and an ended job at once")
    func dueTimes() {
        let at = WallTime(nanosecondsSinceEpoch: 5_000)
        func progress(_ counters: JobProgress.Counters, state: JobState = .active) -> JobProgress {
            JobProgress(
                state: state, endedAt: nil, reason: nil, replacedBy: nil, lateByNanos: nil, result: nil, error: nil, spawned: nil,
                counters: counters)
        }
        var schedule = ScheduleCounters(
            due: at, delayNanos: 0, lastElapse: nil, lastLateByNanos: nil, runs: 0, skipped: 0, missed: 0, running: nil, lastRun: nil,
            lastOutcome: nil, queued: false, paused: false)
        #expect(StoreCoding.due(of: progress(.schedule(schedule))) == 5_000)
        schedule.running = "rq_run"
        #expect(StoreCoding.due(of: progress(.schedule(schedule))) == nil, "its run is due now: the two go together")
        schedule.running = nil
        schedule.queued = true
        #expect(StoreCoding.due(of: progress(.schedule(schedule))) == nil)
        schedule.queued = false
        schedule.paused = true
        #expect(StoreCoding.due(of: progress(.schedule(schedule))) == nil)
        let delivery = DeliveryCounters(attempts: 1, nextAttempt: at, lastStatus: 503, lastError: nil)
        #expect(StoreCoding.due(of: progress(.delivery(delivery))) == 5_000)
        #expect(StoreCoding.due(of: progress(.delivery(delivery), state: .dead)) == nil)
        #expect(StoreCoding.due(of: progress(.none)) == nil)
        #expect(StoreCoding.due(of: countdown("cd_due", key: nil)) == 9_000_000_000)
        var ended = countdown("cd_due", key: nil)
        ended.state = .cancelled
        #expect(StoreCoding.due(of: ended) == nil)
    }

    @Test("the free rows of a daemon that died are claimed as they come within the horizon: ended ones and those due soon at once, one due in an hour when it is near; each row records when it is due")
    func horizon() throws {
        let cluster = TestPostgres.clusterName()
        let server = try TestPostgres.shared()
        let now = SystemClock.now().wall.nanosecondsSinceEpoch
        func due(_ id: String, inSeconds seconds: Int64, state: JobState = .active) -> JobRecord {
            var record = countdown(id, key: nil)
            record.state = state
            record.deadline = WallTime(nanosecondsSinceEpoch: now + seconds * 1_000_000_000)
            if state != .active { record.endedAt = WallTime(nanosecondsSinceEpoch: now) }
            return record
        }
        let dead = try open(cluster, leaseNanos: 1_000_000_000)
        var batch = StoreBatch()
        batch.changes = [.insert(due("cd_soon", inSeconds: 5)), .insert(due("cd_late", inSeconds: 3_600)), .insert(due("cd_ended", inSeconds: 0, state: .expired))]
        dead.submit(batch)
        dead.flush()
        let recorded = try server.psql("SELECT id, due_ns FROM reqd_\(cluster).jobs ORDER BY id")
        #expect(recorded == "cd_ended|\ncd_late|\(now + 3_600_000_000_000)\ncd_soon|\(now + 5_000_000_000)\n", "\(recorded)")
        // The first daemon stops renewing and its lease runs out, as if it had died.
        usleep(1_300_000)
        let second = try open(cluster, leaseNanos: 1_500_000_000)
        defer { second.close() }
        #expect(try second.loadAll().map(\.id).sorted() == ["cd_ended", "cd_soon"], "the row due in an hour stays free")
        let claimed = Mutex<[String]>([])
        second.keepLease(claimed: { records in claimed.withLock { $0 += records.map(\.id) } }, lost: { _ in Issue.record("lease lost") })
        usleep(1_200_000)
        #expect(claimed.withLock { $0.isEmpty }, "renewals claim nothing while it is still beyond the horizon")
        // Brought within the horizon (as an hour passing would), the next renewal claims it.
        _ = try server.psql("UPDATE reqd_\(cluster).jobs SET due_ns = \(now + 30_000_000_000) WHERE id = 'cd_late'")
        #expect(eventually { claimed.withLock { $0 } == ["cd_late"] })
        dead.close()
        // An operator's update from psql, whose search_path is not the cluster's, ends a job too.
        #expect(throws: Never.self) { try server.psql("UPDATE reqd_\(cluster).jobs SET state = 'cancelled' WHERE id = 'cd_late'") }
    }

    @Test("a daemon whose lease expired commits nothing, its renewal says so, and another daemon claims its rows at start")
    func expiredLease() throws {
        let cluster = TestPostgres.clusterName()
        let failures = Mutex<[String]>([])
        let backend = try PostgresStoreBackend(
            address: try StorePlace.postgresAddress(), password: nil, cluster: cluster, leaseNanos: 1_000_000_000,
            logger: Logger(label: "reqd-test"))
        let first = JobStore(backend: backend) { _, failure in
            if let failure { failures.withLock { $0.append(failure) } }
        }
        defer { first.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_held", key: nil))]
        first.submit(batch)
        first.flush()
        #expect(failures.withLock { $0.isEmpty })
        usleep(1_200_000)
        batch.changes = [.insert(countdown("cd_late", key: nil))]
        batch.barriers = [CommitToken(7)]
        first.submit(batch)
        first.flush()
        #expect(failures.withLock { $0.count == 1 && $0[0].contains("lease has expired") }, "\(failures.withLock { $0 })")
        let second = try open(cluster)
        defer { second.close() }
        #expect(try second.loadAll().map(\.id) == ["cd_held"], "the expired daemon's row is free; the refused one was never written")
        do {
            _ = try backend.lease.renew()
            Issue.record("an expired lease was renewed")
        } catch {
            #expect(error.code == .leaseLost, "\(error.message)")
        }
        let lost = Mutex<DaemonError?>(nil)
        first.keepLease(claimed: { _ in }, lost: { error in lost.withLock { $0 = error } })
        #expect(eventually { lost.withLock { $0?.code == .leaseLost } }, "the keeper reports the lease lost")
    }

    @Test("daemons that claim at once split the free rows between them: each row goes to one of them")
    func concurrentClaims() throws {
        let cluster = TestPostgres.clusterName()
        let first = try open(cluster)
        var batch = StoreBatch()
        batch.changes = (0..<300).map { .insert(countdown("cd_\($0)", key: nil)) }
        first.submit(batch)
        first.close()
        let stores = try (0..<3).map { _ in try open(cluster) }
        defer { for store in stores { store.close() } }
        let loaded = Mutex<[[String]]>([[], [], []])
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            let ids = (try? stores[index].loadAll().map(\.id)) ?? []
            loaded.withLock { $0[index] = ids }
        }
        let all = loaded.withLock { $0 }
        #expect(all.map(\.count).reduce(0, +) == 300, "\(all.map(\.count))")
        #expect(Set(all.joined()).count == 300, "no row went to two daemons")
    }

    @Test("the database keeps one active job per owner and key, whoever writes the rows")
    func activeKeyIsUnique() throws {
        let cluster = TestPostgres.clusterName()
        let store = try open(cluster)
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_a", key: "k")), .insert(countdown("cd_b", key: "k"))]
        store.submit(batch)
        store.close()
        let server = try TestPostgres.shared()
        #expect(try server.psql("SELECT id, state, reason FROM reqd_\(cluster).jobs ORDER BY id") == "cd_a|cancelled|superseded\ncd_b|active|\n")
        #expect(throws: TestPostgresError.self, "a second active row with the key is refused") {
            try server.psql("INSERT INTO reqd_\(cluster).jobs (id, owner, kind, state, key, created_ns) VALUES ('cd_c', 1000, 'countdown', 'active', 'k', 1)")
        }
        _ = try server.psql("INSERT INTO reqd_\(cluster).jobs (id, owner, kind, state, key, created_ns) VALUES ('cd_d', 1001, 'countdown', 'active', 'k', 1)")
    }

    @Test("text holding U+0000, which PostgreSQL's text cannot hold, is written with U+FFFD and fails no commit; an attempt's headers holding it still take an address")
    func nulCharacters() throws {
        let failures = Mutex<[String]>([])
        let store = try open(TestPostgres.clusterName()) { _, failure in if let failure { failures.withLock { $0.append(failure) } } }
        defer { store.close() }
        var batch = StoreBatch()
        let attempt = AttemptInfo(
            number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, address: nil, status: nil, error: "reset\u{0}",
            headers: ["X-Odd: a\u{0}b"])
        batch.changes = [.insert(countdown("cd_nul", key: "a\u{0}b")), .attempt("cd_nul", attempt), .attemptAddress("cd_nul", number: 1, address: "192.0.2.1:80")]
        store.submit(batch)
        store.flush()
        #expect(failures.withLock { $0 } == [])
        #expect(try store.loadAll().first?.key == "a\u{FFFD}b")
        let log = Mutex<[AttemptInfo]?>(nil)
        store.attempts(of: "cd_nul") { read in log.withLock { $0 = read } }
        store.flush()
        #expect(log.withLock { $0 }?.map(\.address) == ["192.0.2.1:80"])
    }

    @Test("a commit is one script for commit_statements: prepared statements EXECUTEd, the rest written out, values as literals (quotes doubled, U+0000 replaced, numbers and NULL as SQL writes them); a key that looks like SQL is stored as it is")
    func literalScript() throws {
        let update = "UPDATE jobs SET error = ?2, progress = ?3, late_by_ns = ?4 WHERE id = ?1"
        let statements = [
            StoreStatement(update, [.text("it's\u{0}"), .text("x"), .real(41.5), .null]),
            StoreStatement("DELETE FROM jobs WHERE id = ?1 AND owner = ?10", Array(repeating: .integer(-7), count: 11)),
            StoreStatement("SELECT now()", [.real(-.infinity)]),
        ]
        #expect(
            PostgresStoreBackend.script(statements, prepared: [:])
                == "UPDATE jobs SET error = 'x', progress = 41.5::float8, late_by_ns = NULL WHERE id = 'it''s\u{FFFD}';\n"
                + "DELETE FROM jobs WHERE id = -7 AND owner = -7;\nSELECT now();\n")
        let prepared: [String: PostgresStoreBackend.Prepared] = [
            update: .init(name: "reqd_1", parameters: PostgresStoreBackend.parameters(in: update)),
            "SELECT now()": .init(name: "reqd_2", parameters: 0),
        ]
        #expect(
            PostgresStoreBackend.script(statements, prepared: prepared)
                == "EXECUTE reqd_1('it''s\u{FFFD}', 'x', 41.5::float8, NULL);\n"
                + "DELETE FROM jobs WHERE id = -7 AND owner = -7;\nEXECUTE reqd_2;\n")
        #expect(PostgresStoreBackend.parameters(in: "DELETE FROM jobs WHERE id = ?1 AND owner = ?10") == 10)
        #expect(PostgresStoreBackend.script([StoreStatement("DELETE FROM jobs WHERE id = ?2", [.text("a")])], prepared: [:]) == nil)
        #expect(PostgresStoreBackend.script([StoreStatement(update, [.text("a")])], prepared: prepared) == nil, "too few values")

        let cluster = TestPostgres.clusterName()
        let store = try open(cluster)
        defer { store.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_quote", key: "it's $reqd$ END $reqd$; DROP TABLE jobs; -- ?1 $1"))]
        store.submit(batch)
        store.flush()
        #expect(try store.loadAll().map(\.key) == ["it's $reqd$ END $reqd$; DROP TABLE jobs; -- ?1 $1"])
    }

    @Test("a commit with a run of shortestLoop or more statements with the same SQL is a DO block with that run as one loop over arrays of their values; one that cannot be quoted there is a script; and a block writes the rows that the same changes written one commit at a time write")
    func loopedRuns() throws {
        let count = PostgresStoreBackend.shortestLoop
        let sql = "UPDATE jobs SET error = ?2, progress = ?3, late_by_ns = ?4, key = ?5 WHERE id = ?1"
        let run =
            [
                StoreStatement(sql, [.text("a"), .text("it's"), .real(0.5), .null, .null]),
                StoreStatement(sql, [.text("b"), .null, .real(.nan), .integer(7), .null]),
            ] + (2..<count).map { StoreStatement(sql, [.text("c\($0)"), .text("x"), .null, .integer(-1), .null]) }
        func array(_ first: String, _ each: (Int) -> String, _ type: String) -> String {
            "ARRAY[" + first + (2..<count).map { "," + each($0) }.joined() + "]::\(type)[]"
        }
        let ids = array("'a','b'", { "'c\($0)'" }, "text")
        let errors = array("'it''s',NULL", { _ in "'x'" }, "text")
        let progresses = array("0.5::float8,'NaN'::float8", { _ in "NULL" }, "float8")
        let lates = array("NULL,7", { _ in "-1" }, "bigint")
        let expected =
            "DO $reqd$ DECLARE reqd_row record; BEGIN\nPERFORM check_lease();\n"
            + "FOR reqd_row IN SELECT * FROM unnest(\(ids), \(errors), \(progresses), \(lates)) AS t(v1_1, v1_2, v1_3, v1_4) LOOP\n"
            + "UPDATE jobs SET error = reqd_row.v1_2, progress = reqd_row.v1_3, late_by_ns = reqd_row.v1_4, key = NULL WHERE id = reqd_row.v1_1;\n"
            + "END LOOP;\nDELETE FROM jobs WHERE id = 'd';\nCOMMIT;\nEND $reqd$"
        #expect(PostgresStoreBackend.commit(run + [StoreStatement("DELETE FROM jobs WHERE id = ?1", [.text("d")])], prepared: [:]) == .block(expected))
        guard case .script = PostgresStoreBackend.commit(Array(run.dropLast()), prepared: [:]) else {
            Issue.record("one fewer than shortestLoop is a script")
            return
        }
        let pairs = (0..<count).flatMap { index in
            [StoreStatement("DELETE FROM a WHERE id = ?1", [.text("\(index)")]), StoreStatement("SELECT f(?1)", [.integer(Int64(index))])]
        }
        let names = (0..<count).map { "'\($0)'" }.joined(separator: ",")
        let numbers = (0..<count).map { "\($0)" }.joined(separator: ",")
        #expect(
            PostgresStoreBackend.commit(pairs, prepared: [:])
                == .block(
                    "DO $reqd$ DECLARE reqd_row record; BEGIN\nPERFORM check_lease();\n"
                        + "FOR reqd_row IN SELECT * FROM unnest(ARRAY[\(names)]::text[], ARRAY[\(numbers)]::bigint[]) AS t(v1_1, v2_1) LOOP\n"
                        + "DELETE FROM a WHERE id = reqd_row.v1_1;\nPERFORM f(reqd_row.v2_1);\nEND LOOP;\nCOMMIT;\nEND $reqd$"),
            "a pass of two statements repeated")
        var mixed = run
        mixed[2] = StoreStatement(sql, [.text("c"), .integer(3), .null, .null, .null])
        guard case .script = PostgresStoreBackend.commit(mixed, prepared: [:]) else {
            Issue.record("a position holding a text and a number cannot be an array: the commit is a script")
            return
        }
        for quoted in [
            run + [StoreStatement("DELETE FROM jobs WHERE id = ?1", [.text("x$reqd$")])],
            [StoreStatement(sql, [.text("b$reqd$"), .null, .null, .null, .null])] + run,
        ] {
            guard case .script(let script) = PostgresStoreBackend.commit(quoted, prepared: [:]), script.contains("$reqd$'") else {
                Issue.record("a text holding the block's quote makes the commit a script")
                return
            }
        }

        // The same changes, one commit at a time (scripts) and in one commit (a block), give the
        // same rows.
        let server = try TestPostgres.shared()
        var changes: [StoreChange] = (0...count).map { .insert(countdown("cd_\($0)", key: $0 == 3 ? "it's \u{0}" : nil)) }
        for index in 0..<count {
            changes.append(
                .progress(
                    "cd_\(index)",
                    JobProgress(
                        state: index == count - 1 ? .cancelled : .expired, endedAt: WallTime(nanosecondsSinceEpoch: 5_000 + Int64(index)),
                        reason: index == count - 1 ? .requested : nil, replacedBy: nil, lateByNanos: index.isMultiple(of: 2) ? Int64(index) : nil,
                        result: nil, error: index == 1 ? "it's\u{0} $x$" : nil, spawned: nil, counters: .none)))
        }
        for index in 0..<count {
            changes.append(.attempt("cd_\(index)", AttemptInfo(number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 7_000), durationMs: 1.5, status: 200 + index)))
        }
        var dumps: [String] = []
        for together in [false, true] {
            let cluster = TestPostgres.clusterName()
            let failures = Mutex<[String]>([])
            let store = try open(cluster) { _, failure in if let failure { failures.withLock { $0.append(failure) } } }
            defer { store.close() }
            for batchChanges in together ? [changes] : changes.map({ [$0] }) {
                var batch = StoreBatch()
                batch.changes = batchChanges
                store.submit(batch)
                store.flush()
            }
            #expect(failures.withLock { $0 } == [])
            dumps.append(
                try server.psql(
                    """
                    SELECT j.id, state, key, ended_ns, reason, late_by_ns, error, due_ns, progressed,
                           (SELECT string_agg(seq || ':' || detail, ',') FROM reqd_\(cluster).attempts a WHERE a.job = j.id)
                    FROM reqd_\(cluster).jobs j ORDER BY j.id
                    """))
        }
        #expect(dumps[0] == dumps[1])
        #expect(dumps[0].split(separator: "\n").count == count + 1)
        #expect(dumps[0].contains("cd_1|expired||5001|||it's\u{FFFD} $x$|"), "\(dumps[0])")
    }

    @Test("statements are prepared once per connection, one the server cannot prepare is written out, a new connection prepares again")
    func preparedStatements() throws {
        let backend = try PostgresStoreBackend(
            address: try StorePlace.postgresAddress(), password: nil, cluster: TestPostgres.clusterName(), leaseNanos: 15_000_000_000,
            logger: Logger(label: "reqd-test"))
        defer { backend.close() }
        /// The store's prepared statements on its connection, each with how many times it ran.
        func preparedNow() throws -> [String] {
            var statements: [String] = []
            try backend.read(
                "SELECT name || ' ' || (generic_plans + custom_plans) FROM pg_prepared_statements WHERE name LIKE 'reqd\\_%' ORDER BY name", []
            ) { statements.append($0.text(0) ?? "") }
            return statements
        }
        let insert = "INSERT INTO attempts (job, seq, detail) VALUES (?1, ?2, ?3)"
        // `?2 IS NULL` names no type PostgreSQL can infer.
        let untyped = "DELETE FROM attempts WHERE job = ?1 AND ?2 IS NULL"
        try backend.transaction([StoreStatement(insert, [.text("a"), .integer(1), .text("x")]), StoreStatement(untyped, [.text("b"), .null])])
        #expect(try preparedNow() == ["reqd_1 1"], "the insert prepared and run; the delete written out")
        try backend.transaction([StoreStatement(insert, [.text("a"), .integer(2), .text("y")]), StoreStatement(untyped, [.text("a"), .integer(3)])])
        #expect(try preparedNow() == ["reqd_1 2"], "the second commit ran the same prepared insert")
        var rows: [String] = []
        try backend.read("SELECT job || seq || detail FROM attempts ORDER BY seq", []) { rows.append($0.text(0) ?? "") }
        #expect(rows == ["a1x", "a2y"])
        func backendPID() throws -> Int64 {
            var pid: Int64 = -1
            try backend.read("SELECT pg_backend_pid()::bigint", []) { pid = $0.integer(0) ?? -1 }
            return pid
        }
        let first = try backendPID()
        let server = try TestPostgres.shared()
        _ = try server.psql("SELECT pg_terminate_backend(\(first), 10000)")
        // The first use after the server ended the connection may fail; the next opens another.
        let third = StoreStatement(insert, [.text("a"), .integer(3), .text("z")])
        do { try backend.transaction([third]) } catch { try backend.transaction([third]) }
        #expect(try backendPID() != first)
        #expect(try preparedNow() == ["reqd_1 1"], "prepared again on the new connection, and run")
        rows = []
        try backend.read("SELECT job || seq || detail FROM attempts ORDER BY seq", []) { rows.append($0.text(0) ?? "") }
        #expect(rows == ["a1x", "a2y", "a3z"])
    }

    @Test("a claim reads the rows it took through bound values, so a daemon's claims add no statement to its session, and the session keeps at most mostRewritten statements' SQL")
    func claimsBindTheirNumbers() throws {
        let cluster = TestPostgres.clusterName()
        let backend = try PostgresStoreBackend(
            address: try StorePlace.postgresAddress(), password: nil, cluster: cluster, leaseNanos: 15_000_000_000,
            logger: Logger(label: "reqd-test"))
        defer { backend.close() }
        func claimNow() throws -> [String] {
            var ids: [String] = []
            try backend.claim(all: false) { rows, values throws(DaemonError) in
                try backend.read("SELECT j.id FROM jobs j WHERE \(rows) ORDER BY j.id", values) { ids.append($0.text(0) ?? "") }
            }
            return ids
        }
        var kept: [Int] = []
        for claim in 1...3 {
            // A daemon that writes a row and leaves: the row is free, and the next claim takes it.
            let gone = try open(cluster)
            var batch = StoreBatch()
            batch.changes = [.insert(countdown("cd_\(claim)", key: nil))]
            gone.submit(batch)
            gone.flush()
            gone.close()
            #expect(try claimNow() == ["cd_\(claim)"], "claim \(claim) reads its own row and no earlier one")
            kept.append(backend.rewrittenCount)
        }
        #expect(kept[1] == kept[0] && kept[2] == kept[0], "statements kept after each claim: \(kept)")
        for value in 0..<(PostgresSession.mostRewritten + 100) {
            try backend.read("SELECT \(value)::bigint", []) { _ in }
        }
        #expect(backend.rewrittenCount <= PostgresSession.mostRewritten, "\(backend.rewrittenCount) statements kept")
    }

    @Test("a schema newer than this reqd's is refused and left as it was")
    func newerSchemaRefused() throws {
        let cluster = TestPostgres.clusterName()
        try open(cluster).close()
        let server = try TestPostgres.shared()
        _ = try server.psql("UPDATE reqd_\(cluster).schema_version SET version = 99")
        #expect(throws: DaemonError.self) { try open(cluster) }
        do { _ = try open(cluster) } catch let error as DaemonError { #expect(error.code == .unsupportedStoreVersion, "\(error.message)") }
        #expect(try server.psql("SELECT version FROM reqd_\(cluster).schema_version") == "99\n")
    }

    @Test("while the server is down commits fail with the reason; once it is back the next commit writes them, and nothing acknowledged is lost")
    func serverRestarts() throws {
        // A server of its own: the other tests' server never stops under them.
        let server = try TestPostgres.startPrivate()
        defer { server.remove() }
        let failures = Mutex<[String]>([])
        let committed = Mutex<[UInt64]>([])
        let store = JobStore(
            backend: try PostgresStoreBackend(
                address: try PostgresAddress(parsing: server.url), password: nil, cluster: TestPostgres.clusterName(),
                leaseNanos: 15_000_000_000, logger: Logger(label: "reqd-test")),
            onCommit: { tokens, failure in
                if let failure { failures.withLock { $0.append(failure) } } else { committed.withLock { $0 += tokens.map(\.rawValue) } }
            })
        defer { store.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_before", key: nil))]
        batch.barriers = [CommitToken(1)]
        store.submit(batch)
        store.flush()
        server.stop()
        var ended = countdown("cd_before", key: nil)
        ended.state = .expired
        ended.endedAt = WallTime(nanosecondsSinceEpoch: 9_000_000_001)
        batch.changes = [.insert(countdown("cd_during", key: nil)), .progress("cd_before", ended.progress)]
        batch.barriers = [CommitToken(2)]
        store.submit(batch)
        store.flush()
        #expect(failures.withLock { $0.count } == 1, "the registration made while the server was down was refused")
        #expect(failures.withLock { $0.first?.contains("cannot connect") == true }, "\(failures.withLock { $0 })")
        try server.restart()
        batch.changes = [.insert(countdown("cd_after", key: nil))]
        batch.barriers = [CommitToken(3)]
        store.submit(batch)
        store.flush()
        #expect(committed.withLock { $0 } == [1, 3])
        let rows = Dictionary(uniqueKeysWithValues: try store.loadAll().map { ($0.id, $0) })
        #expect(Set(rows.keys) == ["cd_before", "cd_after"], "the refused insert is not there; the acknowledged ones are")
        #expect(rows["cd_before"]?.state == .expired, "the end that waited through the outage was written")
    }

    @Test("daemons on the PostgreSQL store: a second one on the cluster runs none of the first's jobs, takes them over when the first stops, and a restarted first takes them back when the second stops")
    func daemonRestart() throws {
        let directory = TemporaryDirectory()
        let cluster = TestPostgres.clusterName()
        let address = try StorePlace.postgresAddress()
        func configure(_ configuration: inout Configuration) {
            configuration.storage.backend = .postgres
            configuration.storage.postgresAddress = address
            configuration.storage.clusterName = cluster
            configuration.storage.leaseNanos = 1_500_000_000
        }
        /// The active countdowns the daemon runs itself (its summary counts only those).
        func running(_ daemon: Daemon) throws -> Int? {
            let client = try LineClient(path: daemon.socketPath)
            return ((client.call(["id": 1, "op": "status"])?.result?["jobs"] as? [String: Any])?["countdown"] as? [String: Any])?["active"] as? Int
        }
        func listed(_ daemon: Daemon) throws -> [String] {
            let client = try LineClient(path: daemon.socketPath)
            let jobs = try #require(client.call(["id": 1, "op": "list"])?.result?["jobs"] as? [[String: Any]])
            return jobs.compactMap { $0["id"] as? String }
        }
        let first = try startDaemon(in: directory, configure: configure)
        let client = try LineClient(path: first.socketPath)
        let durableID = try #require(client.call(["id": 1, "op": "register-countdown", "key": "d", "duration_ms": 60_000])?.job?["id"] as? String)
        let other = TemporaryDirectory()
        let second = try startDaemon(in: other, configure: configure)
        #expect(try running(second) == 0, "the first daemon's job is not the second's")
        #expect(try listed(second) == [durableID], "though the second lists it, from the database")
        first.stop()
        #expect(eventually { (try? running(second)) == 1 }, "the second daemon took the job over")
        let server = try TestPostgres.shared()
        second.stop()
        #expect(try server.psql("SELECT id, state FROM reqd_\(cluster).jobs") == "\(durableID)|active\n")
        let again = try startDaemon(in: directory, configure: configure)
        defer { again.stop() }
        #expect(try running(again) == 1 && listed(again) == [durableID])
    }

    @Test("the password file is read only for a URL that holds no password: with one in the URL, a missing file stops nothing; without, it refuses the start naming the file")
    func passwordFileOnlyWhenNeeded() throws {
        let cluster = TestPostgres.clusterName()
        var address = try StorePlace.postgresAddress()
        func configure(_ configuration: inout Configuration) {
            configuration.storage.backend = .postgres
            configuration.storage.postgresAddress = address
            configuration.storage.clusterName = cluster
            configuration.storage.postgresPasswordFile = "/nonexistent/reqd-pgpassword"
        }
        // The test server trusts its socket's clients, so any password is taken.
        address.password = "in-the-url"
        let daemon = try startDaemon(in: TemporaryDirectory(), configure: configure)
        daemon.stop()
        address.password = nil
        do {
            let refused = try startDaemon(in: TemporaryDirectory(), configure: configure)
            refused.stop()
            Issue.record("a start without a readable password file went on")
        } catch let error as DaemonError {
            #expect(error.message.contains("/nonexistent/reqd-pgpassword"), "\(error.message)")
        }
    }
}

