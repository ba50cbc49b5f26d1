import Foundation
import ReqdTestSupport
import Synchronization
import Testing

@Suite("Three daemons on one PostgreSQL cluster, end to end", .serialized)
struct ClusterBinaryTests {
    /// The cluster's lease in these tests, short so that a takeover comes soon.
    static let leaseSeconds = 3.0

    /// Starts `count` daemons on one cluster of `postgres`, each in a directory of its own under
    /// `directory` (`d0`, `d1`, …) with its log in `reqd.log` there.
    static func startDaemons(
        _ count: Int, on postgres: TestPostgres, cluster: String, lease: String? = nil, in directory: String
    ) throws -> [DaemonProcess] {
        let settings = ["storage.backend=postgres", "storage.postgres_url=\(postgres.url)", "cluster.name=\(cluster)"]
            + (lease.map { ["cluster.lease=\($0)"] } ?? [])
        return try (0..<count).map { index in
            let place = directory + "/d\(index)"
            try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
            return try DaemonProcess(directory: place, extraArguments: settings.flatMap { ["--set", $0] }, logFile: place + "/reqd.log")
        }
    }

    /// Asks `find` every 25 ms for up to 5 s: its first answer, or nil.
    static func soon<T>(_ find: () throws -> T?) rethrows -> T? {
        for _ in 0..<200 {
            if let found = try find() { return found }
            usleep(25_000)
        }
        return nil
    }

    @Test(
        "three daemons share a cluster and one is SIGKILLed while it holds leases: the others take its jobs over within the lease and 1 s, every acknowledged job completes, no two attempts of one job are in flight at once, only attempts in flight at the kill are sent again, and its countdowns fire once, late"
    )
    func killOneOfThree() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("k")
        let schema = "reqd_\(cluster)"
        // Polls succeed at their 6th answer; everything else answers after 1.5 s, so that the
        // killed daemon has attempts in flight.
        let polled = Mutex<[String: Int]>([:])
        let server = try TestHTTPServer { record in
            if record.path.hasPrefix("/poll/") {
                let count = polled.withLock { counts -> Int in
                    counts[record.path, default: 0] += 1
                    return counts[record.path]!
                }
                return TestHTTPServer.Reply(status: 200, body: count >= 6 ? #"{"state":"done"}"# : #"{"state":"running"}"#)
            }
            if record.path.hasPrefix("/fired/") { return TestHTTPServer.Reply(status: 200, body: "{}") }
            return TestHTTPServer.Reply(status: 200, body: "{}", delayNanos: 1_500_000_000)
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(3, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons where daemon.process.isRunning { daemon.stop() } }

        // Each daemon gets submits, countdowns with an on_expire request, polls and a group, every
        // request to a path of its own, so that a path names one job's attempts.
        var acknowledged: [[String]] = [[], [], []]
        var countdowns: [String: String] = [:]
        func register(_ arguments: [String], on index: Int) throws -> String {
            let outcome = try Binaries.client(["--json"] + arguments, socket: daemons[index].socket)
            let id = try #require((outcome.json?["job"] as? [String: Any])?["id"] as? String, "\(arguments): \(outcome.stderr)")
            acknowledged[index].append(id)
            return id
        }
        // The victim's jobs are registered last, right before the kill, so its slow attempts are in flight.
        for index in [1, 2, 0] {
            for job in 0..<5 {
                _ = try register(["submit", "POST", server.url("/slow/\(index)-\(job)"), "-d", "{}"], on: index)
            }
            for job in 0..<2 {
                _ = try register(["register-poll", server.url("/poll/\(index)-\(job)"), "--every", "300ms", "--until", #"/state == "done""#], on: index)
            }
            _ = try register(
                ["group", "--request", server.url("/member/\(index)-0"), "--request", server.url("/member/\(index)-1")], on: index)
            for job in 0..<2 {
                let id = try register(["register-countdown", "--in", "2s", "--on-expire", "POST", server.url("/fired/\(index)-\(job)")], on: index)
                countdowns[id] = "/fired/\(index)-\(job)"
            }
        }
        let victim = daemons[0]
        let holder = try postgres.psql("SELECT id FROM \(schema).daemons WHERE pid = \(victim.process.processIdentifier)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(!holder.isEmpty, "the victim has a row in daemons")
        let heldBefore = Int(try postgres.psql("SELECT count(*) FROM \(schema).jobs WHERE holder = '\(holder)'").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(heldBefore >= acknowledged[0].count, "the victim holds the jobs registered on it")
        let inFlightAtKill = server.records.filter { $0.end == nil }.count
        #expect(inFlightAtKill > 0, "the kill comes while attempts are in flight")

        let killedAt = DispatchTime.now().uptimeNanoseconds
        #expect(victim.stop(signal: SIGKILL) == SIGKILL)
        var takenOverAt: UInt64?
        while takenOverAt == nil, DispatchTime.now().uptimeNanoseconds - killedAt < 20_000_000_000 {
            let held = try postgres.psql("SELECT count(*) FROM \(schema).jobs WHERE holder = '\(holder)'")
            if held.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { takenOverAt = DispatchTime.now().uptimeNanoseconds }
            usleep(20_000)
        }
        let takeover = try #require(takenOverAt, "the victim's jobs were taken over") - killedAt
        print("takeover after SIGKILL: \(takeover / 1_000_000) ms (lease \(Int(Self.leaseSeconds * 1000)) ms)")
        #expect(takeover <= UInt64((Self.leaseSeconds + 1) * 1e9), "taken over within the lease and 1 s: \(takeover / 1_000_000) ms")

        // Every acknowledged job, and what they spawned, ends well.
        var active = "?"
        for _ in 0..<600 where active != "0" {
            active = try postgres.psql("SELECT count(*) FROM \(schema).jobs WHERE state = 'active'").trimmingCharacters(in: .whitespacesAndNewlines)
            if active != "0" { usleep(50_000) }
        }
        #expect(active == "0", "every job ended within 30 s")
        let rows = try postgres.psql("SELECT id, state, coalesce(late_by_ns, 0) FROM \(schema).jobs")
        var states: [String: (state: String, lateBy: Int64)] = [:]
        for line in rows.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            states[fields[0]] = (fields[1], Int64(fields[2]) ?? 0)
        }
        for id in acknowledged.joined() {
            let state = states[id]?.state
            #expect(state == "succeeded" || state == "expired", "\(id) ended \(state ?? "missing")")
        }
        #expect(states.values.filter { $0.state != "succeeded" && $0.state != "expired" }.isEmpty, "\(rows)")

        // The target's log: per path (one job's attempts), never two at once; a path with more than
        // one attempt had one in flight at the kill.
        let records = server.records
        for (path, attempts) in Dictionary(grouping: records, by: \.path) where !path.hasPrefix("/poll/") {
            let ordered = attempts.sorted { $0.start < $1.start }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                #expect((earlier.end ?? .max) <= later.start, "\(path): two attempts in flight at once")
                #expect(
                    earlier.start <= killedAt && (earlier.end ?? .max) + 100_000_000 >= killedAt,
                    "\(path) was sent again, but its earlier attempt was not in flight at the kill")
            }
        }
        let resent = Dictionary(grouping: records, by: \.path).filter { !$0.key.hasPrefix("/poll/") && $0.value.count > 1 }
        #expect(!resent.isEmpty, "the attempts in flight at the kill were sent again by the daemons that took them over")
        for (path, attempts) in Dictionary(grouping: records, by: \.path) where path.hasPrefix("/poll/") {
            let ordered = attempts.sorted { $0.start < $1.start }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                #expect((earlier.end ?? .max) <= later.start, "\(path): two polls in flight at once")
            }
        }
        // The victim's countdowns expired after the kill, late, and each sent its request once.
        for id in acknowledged[0] where id.hasPrefix("cd_") {
            #expect(states[id]?.state == "expired")
            #expect((states[id]?.lateBy ?? 0) > 0, "\(id) fired late, after the takeover")
            #expect(records.filter { $0.path == countdowns[id] }.count == 1, "\(id)'s on_expire request was sent once")
        }
        for id in acknowledged[1] + acknowledged[2] where id.hasPrefix("cd_") {
            #expect(records.filter { $0.path == countdowns[id] }.count == 1, "\(id)'s on_expire request was sent once")
        }
    }

    @Test(
        "a schedule whose daemon is SIGKILLed goes on from another daemon: each elapse fires once across the cluster (a run the kill caught unrecorded is sent again under its own key), the ones missed while it was down as one catch-up run, and no run is lost after the takeover"
    )
    func scheduleTakenOver() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("s")
        let schema = "reqd_\(cluster)"
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: "{}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(2, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons where daemon.process.isRunning { daemon.stop() } }
        let registered = try Binaries.client(
            ["--json", "register-schedule", "--every", "1s", "--key", "beat", "POST", server.url("/beat"), "-d", "{}"], socket: daemons[0].socket)
        let id = try #require((registered.json?["job"] as? [String: Any])?["id"] as? String, "\(registered.stderr)")
        let runs = { server.records(path: "/beat") }
        #expect(Self.soon { runs().count >= 2 ? true : nil } == true, "the schedule runs on the daemon that holds it")

        let victim = daemons[0]
        let holder = { try postgres.psql("SELECT coalesce(holder, '') FROM \(schema).jobs WHERE id = '\(id)'").trimmingCharacters(in: .whitespacesAndNewlines) }
        let before = try holder()
        #expect(victim.stop(signal: SIGKILL) == SIGKILL)
        // Once the victim is gone: a run it sent is before the kill, and no other daemon sends
        // one until its lease runs out.
        let killedAt = DispatchTime.now().uptimeNanoseconds
        let runsAtKill = runs().count
        // The lease runs out, the other daemon claims the row, and the schedule goes on there.
        var after = before
        while after == before, DispatchTime.now().uptimeNanoseconds - killedAt < 15_000_000_000 {
            usleep(50_000)
            after = try holder()
        }
        #expect(after != before && !after.isEmpty, "the other daemon holds the schedule")
        let takenOverAt = DispatchTime.now().uptimeNanoseconds
        usleep(4_500_000)
        let received = runs().sorted { $0.start < $1.start }
        #expect(received.allSatisfy { $0.header("Idempotency-Key") != nil }, "every run carries its job's key")
        // A run whose end the killed daemon had not yet committed (within `cluster.commit_delay`
        // of it, or still in flight) is sent again from the other daemon under the same key:
        // at least once, as docs/CLUSTER.md says, and never as a new job for the same elapse.
        var seen = Set<String>()
        var all: [TestHTTPServer.Record] = []
        var resent: [TestHTTPServer.Record] = []
        for run in received {
            if seen.insert(run.header("Idempotency-Key") ?? "").inserted { all.append(run) } else { resent.append(run) }
        }
        let lastBeforeKill = received.last { $0.start <= killedAt }
        // Its end within 100 ms of the kill: one the daemon had committed is never sent again.
        let caughtByKill = lastBeforeKill.map { ($0.end ?? .max) + 100_000_000 >= killedAt } ?? false
        #expect(
            resent.count <= 1 && resent.allSatisfy { caughtByKill && $0.header("Idempotency-Key") == lastBeforeKill?.header("Idempotency-Key") },
            "only the run the kill caught is sent again: \(resent.compactMap { $0.header("Idempotency-Key") }), the last before the kill \(lastBeforeKill?.header("Idempotency-Key") ?? "-")")
        let afterKill = all.filter { $0.start > killedAt }
        // One catch-up run for the elapses missed while no daemon held it, then one a second.
        #expect(afterKill.count >= 4, "runs after the takeover: \(afterKill.count)")
        #expect(afterKill.count <= 7, "no burst of missed elapses: \(afterKill.count)")
        let timeline = all.sorted { $0.start < $1.start }.map {
            "\((Int64($0.start) - Int64(killedAt)) / 1_000_000) ms \($0.header("Idempotency-Key") ?? "-")"
        }
        // On the grid, one a second, before the kill and after the catch-up run; the catch-up run
        // itself comes at the takeover, wherever that falls between two elapses.
        let beforeKill = all.filter { $0.start <= killedAt }.map(\.start).sorted()
        let onGrid = afterKill.dropFirst().map(\.start).sorted()
        for starts in [beforeKill, onGrid] {
            for (earlier, later) in zip(starts, starts.dropFirst()) {
                let gap = (later - earlier) / 1_000_000
                #expect(gap >= 800 && gap <= 1_200, "two runs \(gap) ms apart, not one elapse apart: \(timeline)")
            }
        }
        let caughtUp = try #require(afterKill.first)
        #expect(caughtUp.start >= takenOverAt - 1_000_000_000, "the first run after the kill came with the takeover")
        #expect(runsAtKill >= 2)
        let status = try Binaries.client(["--json", "status", id], socket: daemons[1].socket)
        let schedule = (status.json?["job"] as? [String: Any])?["schedule"] as? [String: Any]
        #expect(((schedule?["missed"] as? Int) ?? 0) >= 1, "the elapses missed while it was down are counted: \(status.stdout)")
    }

    @Test("a replace on one daemon aborts the request in flight on another: the target sees the abort, the other daemon's job ends superseded by the new one, and its ended row is claimed for retention")
    func replaceAcrossDaemons() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("r")
        let server = try TestHTTPServer { record in
            TestHTTPServer.Reply(status: 200, body: "{}", delayNanos: record.path == "/old" ? 20_000_000_000 : 0)
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(2, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons { daemon.stop() } }
        let old = try Binaries.client(["--json", "submit", "POST", server.url("/old"), "-d", "{}", "--replace", "order-7"], socket: daemons[1].socket)
        let oldID = try #require((old.json?["job"] as? [String: Any])?["id"] as? String, "\(old.stderr)")
        try #require(Self.soon { server.records.first { $0.path == "/old" } } != nil, "the first daemon's request reached the target")
        let replacedAt = DispatchTime.now().uptimeNanoseconds
        let new = try Binaries.client(["--json", "submit", "POST", server.url("/new"), "-d", "{}", "--replace", "order-7"], socket: daemons[0].socket)
        let newID = try #require((new.json?["job"] as? [String: Any])?["id"] as? String, "\(new.stderr)")
        let record = try #require(Self.soon { server.records.first { $0.path == "/old" && $0.end != nil } }, "the old request ended at the target")
        #expect(record.abortedByClient, "the other daemon aborted it")
        #expect(try #require(record.end) - replacedAt < 2_000_000_000, "within 2 s of the replace")
        let waited = try Binaries.client(["--json", "wait", oldID], socket: daemons[1].socket, timeout: 10)
        #expect(waited.status == 3, "the old job ended cancelled on its own daemon: \(waited.stdout)\(waited.stderr)")
        let job: [String: Any] = (waited.json?["job"] as? [String: Any]) ?? waited.json ?? [:]
        let reason = job["reason"] as? String
        let replacedBy = job["replaced_by"] as? String
        #expect(reason == "superseded" && replacedBy == newID, "\(waited.stdout)")
        let row = try postgres.psql("SELECT state, reason, replaced_by FROM reqd_\(cluster).jobs WHERE id = '\(oldID)'")
        #expect(row == "cancelled|superseded|\(newID)\n")
        #expect(server.records.filter { $0.path == "/old" }.count == 1, "the old request was not sent again")
        // The ended row was let go, and a claim took it, for a daemon's retention to delete it.
        var held = ""
        for _ in 0..<100 where held != "t\n" {
            held = try postgres.psql("SELECT holder IS NOT NULL FROM reqd_\(cluster).jobs WHERE id = '\(oldID)'")
            if held != "t\n" { usleep(50_000) }
        }
        #expect(held == "t\n", "the old job's ended row was claimed by a daemon")
    }

    @Test("a client on one daemon reaches the durable jobs another holds: status reads the row, wait replies when the job ends there, cancel by id, key or scope ends them there, aborting the request in flight, and retry takes the row over")
    func clientsOnAnyDaemon() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("c")
        let server = try TestHTTPServer { record in
            TestHTTPServer.Reply(status: record.path == "/fails" ? 500 : 200, body: "{}", delayNanos: record.path == "/slow" ? 20_000_000_000 : 0)
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(2, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons { daemon.stop() } }
        let (here, there) = (daemons[0].socket, daemons[1].socket)
        func id(_ outcome: Binaries.Outcome) throws -> String {
            try #require((outcome.json?["job"] as? [String: Any])?["id"] as? String, "\(outcome.stdout)\(outcome.stderr)")
        }
        func job(_ outcome: Binaries.Outcome) -> [String: Any] { (outcome.json?["job"] as? [String: Any]) ?? outcome.json ?? [:] }
        let slow = try id(Binaries.client(["--json", "submit", "POST", server.url("/slow"), "-d", "{}"], socket: there))
        let tea = try id(Binaries.client(["--json", "register-countdown", "--key", "tea", "--seconds", "600"], socket: there))
        let kitchen = try id(Binaries.client(["--json", "register-countdown", "--scope", "kitchen", "--seconds", "600"], socket: there))
        let local = try id(Binaries.client(["--json", "register-countdown", "--scope", "kitchen", "--seconds", "600"], socket: here))
        try #require(Self.soon { server.records.first { $0.path == "/slow" } } != nil, "the other daemon's request reached the target")

        // status on this daemon reads the other daemon's row.
        let status = try Binaries.client(["--json", "status", slow], socket: here)
        #expect(status.status == 0 && job(status)["state"] as? String == "active" && job(status)["kind"] as? String == "request", "\(status.stdout)\(status.stderr)")
        let missing = try Binaries.client(["--json", "status", "rq_nosuchjob0001"], socket: here)
        #expect(missing.status != 0 && (missing.stdout + missing.stderr).contains("no job 'rq_nosuchjob0001'"), "\(missing.stdout)\(missing.stderr)")

        // A wait here, then a cancel here: the other daemon aborts its request, and the wait replies.
        let waiter = try Binaries.clientInBackground(["--json", "wait", slow], socket: here)
        usleep(500_000)
        let cancelledAt = DispatchTime.now().uptimeNanoseconds
        let cancel = try Binaries.client(["--json", "cancel", slow], socket: here)
        #expect(cancel.status == 0 && (cancel.json?["cancelled"] as? [String]) == [slow], "\(cancel.stdout)\(cancel.stderr)")
        let record = try #require(Self.soon { server.records.first { $0.path == "/slow" && $0.end != nil } }, "the request ended at the target")
        #expect(record.abortedByClient, "the other daemon aborted it")
        #expect(try #require(record.end) - cancelledAt < 2_000_000_000, "within 2 s of the cancel")
        let waited = waiter()
        let waitedJob = (waited.json?["job"] as? [String: Any]) ?? waited.json ?? [:]
        #expect(waited.status == 3, "the wait on this daemon ended with the job, cancelled")
        #expect(waitedJob["state"] as? String == "cancelled" && waitedJob["reason"] as? String == "requested", "\(waited.stdout)")
        let onItsDaemon = try Binaries.client(["--json", "wait", slow], socket: there, timeout: 10)
        #expect(onItsDaemon.status == 3 && job(onItsDaemon)["reason"] as? String == "requested", "\(onItsDaemon.stdout)")
        #expect(try postgres.psql("SELECT state, reason FROM reqd_\(cluster).jobs WHERE id = '\(slow)'") == "cancelled|requested\n")
        let ended = try Binaries.client(["--json", "wait", slow], socket: here, timeout: 10)
        #expect(ended.status == 3, "a wait on a job that ended elsewhere replies at once: \(ended.stdout)\(ended.stderr)")
        #expect(server.records.filter { $0.path == "/slow" }.count == 1, "the request was not sent again")

        // By key, and by scope (this daemon's job and the other's in one reply).
        let byKey = try Binaries.client(["--json", "cancel", "--key", "tea"], socket: here)
        #expect((byKey.json?["cancelled"] as? [String]) == [tea], "\(byKey.stdout)\(byKey.stderr)")
        let byScope = try Binaries.client(["--json", "cancel", "--scope", "kitchen"], socket: here)
        #expect(Set((byScope.json?["cancelled"] as? [String]) ?? []) == [kitchen, local], "\(byScope.stdout)\(byScope.stderr)")
        for countdown in [tea, kitchen] {
            let there = try Binaries.client(["--json", "status", countdown], socket: there)
            #expect(job(there)["state"] as? String == "cancelled", "\(countdown) ended on its own daemon: \(there.stdout)")
        }
        // list here shows both daemons' jobs, oldest first, page after page.
        let listed = try Binaries.client(["list", "--quiet"], socket: here)
        #expect(listed.stdout.split(separator: "\n").map(String.init) == [slow, tea, kitchen, local], "\(listed.stdout)\(listed.stderr)")
        let scoped = try Binaries.client(["list", "--quiet", "--scope", "kitchen", "--state", "cancelled"], socket: there)
        #expect(scoped.stdout.split(separator: "\n").map(String.init) == [kitchen, local], "\(scoped.stdout)\(scoped.stderr)")
        let firstPage = try Binaries.client(["--json", "list", "--limit", "2"], socket: here)
        let next = try #require(firstPage.json?["next"] as? String, "\(firstPage.stdout)")
        let secondPage = try Binaries.client(["list", "--quiet", "--after", next], socket: here)
        #expect(secondPage.stdout.split(separator: "\n").map(String.init) == [kitchen, local], "\(secondPage.stdout)\(secondPage.stderr)")
        let again = try Binaries.client(["--json", "cancel", "--key", "tea"], socket: here)
        #expect(again.status != 0, "no active job with that key is left: \(again.stdout)\(again.stderr)")

        // retry here of a dead job the other daemon holds: this daemon takes its row and sends it again.
        let dead = try id(Binaries.client(["--json", "submit", "POST", server.url("/fails"), "-d", "{}", "--max-attempts", "1"], socket: there))
        let died = try Binaries.client(["--json", "wait", dead], socket: here, timeout: 10)
        #expect(died.status == 5, "dead on the other daemon, seen from this one: \(died.stdout)\(died.stderr)")
        let retried = try Binaries.client(["--json", "retry", dead], socket: here)
        #expect(retried.status == 0, "\(retried.stdout)\(retried.stderr)")
        let second = try Binaries.client(["--json", "wait", dead], socket: here, timeout: 10)
        #expect(second.status == 5, "\(second.stdout)\(second.stderr)")
        #expect(server.records.filter { $0.path == "/fails" }.count == 2, "sent once by each daemon")
        #expect(try postgres.psql("SELECT holder = (SELECT id FROM reqd_\(cluster).daemons WHERE pid = \(daemons[0].process.processIdentifier)) FROM reqd_\(cluster).jobs WHERE id = '\(dead)'") == "t\n")
        let fromThere = try Binaries.client(["--json", "status", dead], socket: there)
        #expect(job(fromThere)["state"] as? String == "dead" && (job(fromThere)["request"] as? [String: Any]) != nil, "the other daemon forgot its copy and reads the row: \(fromThere.stdout)\(fromThere.stderr)")
        let twice = try Binaries.client(["--json", "retry", dead], socket: there)
        #expect(twice.status == 0, "and can retry it in turn: \(twice.stdout)\(twice.stderr)")
        _ = try Binaries.client(["--json", "wait", dead], socket: there, timeout: 10)
        #expect(server.records.filter { $0.path == "/fails" }.count == 3)
    }

    @Test("a watch on one daemon of a job another holds streams the events that daemon's own watcher sees, in the same order, and ends with the job")
    func watchAcrossDaemons() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("w")
        let seen = Mutex(0)
        let server = try TestHTTPServer { _ in
            // The first attempt is slow, so both watches are in place before it answers.
            let number = seen.withLock { count in
                count += 1
                return count
            }
            return TestHTTPServer.Reply(status: number < 3 ? 503 : 200, body: "{}", delayNanos: number == 1 ? 1_500_000_000 : 0)
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(2, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons { daemon.stop() } }
        func id(_ outcome: Binaries.Outcome) throws -> String {
            try #require((outcome.json?["job"] as? [String: Any])?["id"] as? String, "\(outcome.stdout)\(outcome.stderr)")
        }
        /// Starts `reqd-client --json watch JOB` on a daemon; `finish` waits for the stream to end and
        /// gives the events' lines, each as type, attempt, status and remaining seconds.
        func watch(_ job: String, on socket: String) throws -> () -> (status: Int32, events: [String]) {
            let watching = try Binaries.clientInBackground(["--json", "watch", job], socket: socket)
            return {
                let outcome = watching()
                let events = outcome.stdout.split(separator: "\n").compactMap { line -> String? in
                    guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                        let type = object["event"] as? String
                    else { return nil }
                    let remaining = (object["remaining_ms"] as? Int).map { "\(($0 + 500) / 1000)s" } ?? "-"
                    return "\(type) \(object["attempt"] as? Int ?? 0) \(object["status"] as? Int ?? 0) \(remaining)"
                }
                return (outcome.status, events)
            }
        }
        let submitted = try id(Binaries.client(["--json", "submit", "POST", server.url("/flaky"), "-d", "{}", "--backoff", "200ms..300ms"], socket: daemons[1].socket))
        let countdown = try id(Binaries.client(["--json", "register-countdown", "--seconds", "3"], socket: daemons[1].socket))
        let watches = try [submitted, countdown].flatMap { job in
            [try watch(job, on: daemons[1].socket), try watch(job, on: daemons[0].socket)]
        }
        let results = watches.map { $0() }
        for (index, job) in [submitted, countdown].enumerated() {
            let (there, here) = (results[index * 2], results[index * 2 + 1])
            #expect(!there.events.isEmpty && here.events == there.events, "\(job): on its daemon \(there.events), on the other \(here.events)")
            #expect(here.status == there.status, "\(job): the same exit status")
        }
        #expect(results[0].events.last?.hasPrefix("succeeded") == true && results[0].events.filter { $0.hasPrefix("retrying") }.count == 2, "\(results[0].events)")
        #expect(results[2].events.last?.hasPrefix("expired") == true && results[2].events.contains { $0.hasPrefix("tick") }, "\(results[2].events)")
    }

    @Test("a daemon paused past its lease (SIGSTOP) sends nothing when it wakes and exits with status 75; the other daemon has taken its jobs over and runs each once")
    func pausedPastLease() throws {
        let postgres = try TestPostgres.shared()
        let cluster = TestPostgres.clusterName("p")
        let retried = Atomic(0)
        let server = try TestHTTPServer { record in
            guard record.path == "/retry", retried.add(1, ordering: .relaxed).newValue == 1 else {
                return TestHTTPServer.Reply(status: 200, body: "{}")
            }
            var reply = TestHTTPServer.Reply(status: 503, body: "{}")
            reply.headers.append(("Retry-After", "2"))
            return reply
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemons = try Self.startDaemons(2, on: postgres, cluster: cluster, lease: "\(Int(Self.leaseSeconds))s", in: directory)
        defer { for daemon in daemons where daemon.process.isRunning { daemon.stop() } }
        let paused = daemons[0]
        for arguments in [
            ["submit", "POST", server.url("/retry"), "-d", "{}", "--backoff", "1s..2s"],
            ["register-countdown", "--in", "3s", "--on-expire", "POST", server.url("/fired")],
        ] {
            let outcome = try Binaries.client(["--json"] + arguments, socket: paused.socket)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        var answered = false
        for _ in 0..<200 where !answered {
            answered = server.records.contains { $0.path == "/retry" && $0.end != nil }
            if !answered { usleep(10_000) }
        }
        try #require(answered, "the first attempt was answered 503")
        kill(paused.process.processIdentifier, SIGSTOP)
        // Past the lease, the retry and the countdown's deadline: the other daemon runs both.
        usleep(UInt32((Self.leaseSeconds + 3) * 1e6))
        kill(paused.process.processIdentifier, SIGCONT)
        for _ in 0..<500 where paused.process.isRunning { usleep(10_000) }
        #expect(!paused.process.isRunning, "the paused daemon exited when it woke")
        if !paused.process.isRunning {
            #expect(paused.process.terminationStatus == 75, "exit status \(paused.process.terminationStatus)")
        }
        var active = "?"
        for _ in 0..<200 where active != "0" {
            active = try postgres.psql("SELECT count(*) FROM reqd_\(cluster).jobs WHERE state = 'active'")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if active != "0" { usleep(50_000) }
        }
        #expect(active == "0", "every job ended")
        #expect(server.records.filter { $0.path == "/retry" }.count == 2, "the 503, then one retry, from the daemon that took the job over")
        #expect(server.records.filter { $0.path == "/fired" }.count == 1, "the countdown's request was sent once")
        let log = (try? String(contentsOfFile: directory + "/d0/reqd.log", encoding: .utf8)) ?? ""
        #expect(log.contains("lease lost"), "the paused daemon said why it exited")
    }
}
