import Foundation
import ReqdTestSupport
import Testing

/// `/slow/*` answers after 5 s, `/gone` 404 at once; anything else 200 at once.
private func makeServer() throws -> TestHTTPServer {
    try TestHTTPServer { record in
        if record.path.hasPrefix("/slow/") { return TestHTTPServer.Reply(body: "{}", delayNanos: 5_000_000_000) }
        return TestHTTPServer.Reply(status: record.path == "/gone" ? 404 : 200, body: "{}")
    }
}

/// `time` as an `OnCalendar=` date and time in UTC, to the second.
private func calendarDate(_ time: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: time)
}

/// A job's view from `status --json`.
private func status(_ id: String, _ daemon: DaemonProcess) throws -> [String: Any] {
    let outcome = try Binaries.client(["--json", "status", id], socket: daemon.socket)
    return (outcome.json?["job"] as? [String: Any]) ?? [:]
}

private func schedule(_ id: String, _ daemon: DaemonProcess) throws -> [String: Any] {
    (try status(id, daemon)["schedule"] as? [String: Any]) ?? [:]
}

/// Registers a schedule and returns its id.
private func register(_ arguments: [String], _ daemon: DaemonProcess) throws -> String {
    let outcome = try Binaries.client(["register-schedule", "-q"] + arguments, socket: daemon.socket)
    #expect(outcome.status == 0, "\(outcome.stderr)")
    return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Seconds since the epoch of an RFC 3339 time the daemon wrote.
private func epochSeconds(_ text: Any?) -> Double? {
    guard let text = text as? String else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)?.timeIntervalSince1970
}

/// Sleeps until `plus` seconds past the first odd second of the wall clock at or after `time`.
private func sleepUntil(oddSecondAfter time: Double, plus: Double) {
    var second = ceil(time)
    if Int(second) % 2 == 0 { second += 1 }
    let wait = second + plus - Date().timeIntervalSince1970
    if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
}

@Suite("reqd-client register-schedule, end to end", .serialized)
struct ScheduleBinaryTests {
    @Test("'*:*:0/2' fires every 2 s on the even second, one request per elapse")
    func everyTwoSeconds() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            let id = try register(["--calendar", "*:*:0/2", "--tz", "UTC", "GET", server.url("/tick"), "--max-attempts", "1"], daemon)
            let registered = Date().timeIntervalSince1970
            #expect(id.hasPrefix("sc_"))
            // Looked at 0.3 s past an odd second, half-way between elapses, so that no run starts
            // between reading the target's log and the schedule's counts.
            sleepUntil(oddSecondAfter: registered + 6, plus: 0.3)
            let requests = server.records(path: "/tick")
            #expect((3...4).contains(requests.count), "\(requests.count) requests in 7 to 8 s")
            for (earlier, later) in zip(requests, requests.dropFirst()) {
                let gap = Double(later.start - earlier.start) / 1e9
                #expect(abs(gap - 2) < 0.25, "requests \(gap) s apart")
            }
            let view = try schedule(id, daemon)
            #expect(view["runs"] as? Int == requests.count)
            #expect(view["missed"] as? Int == 0 && view["skipped"] as? Int == 0)
            let last = epochSeconds(view["last_elapse"]) ?? 0.5
            #expect(last.truncatingRemainder(dividingBy: 2) == 0, "the last elapse \(last) is on the grid")
            #expect((view["last_late_by_ms"] as? Double ?? 1_000) < 50)
            #expect((view["next"] as? [Any])?.count == 3)
        }
    }

    @Test("a 5 s target on a 2 s schedule: skip never overlaps, queue starts when the run ends, replace aborts it")
    func overlap() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            var ids: [String: String] = [:]
            for mode in ["skip", "queue", "replace"] {
                ids[mode] = try register(
                    ["--calendar", "*:*:0/2", "--tz", "UTC", "--overlap", mode, "--key", mode, "GET", server.url("/slow/\(mode)"), "--max-attempts", "1"],
                    daemon)
            }
            usleep(12_500_000)
            let skip = server.records(path: "/slow/skip")
            #expect(skip.count >= 2)
            for (earlier, later) in zip(skip, skip.dropFirst()) {
                #expect(later.start >= earlier.end ?? .max, "skip: a run started while the previous one was on the wire")
            }
            let skipped = try schedule(ids["skip"] ?? "", daemon)
            #expect((skipped["skipped"] as? Int ?? 0) >= 3)

            let queue = server.records(path: "/slow/queue")
            #expect(queue.count >= 2)
            for (earlier, later) in zip(queue, queue.dropFirst()) {
                guard let end = earlier.end else { continue }
                #expect(later.start >= end && later.start - end < 300_000_000, "queue: the next run starts as the previous ends")
            }

            let replace = server.records(path: "/slow/replace")
            #expect(replace.count >= 5, "replace: a run every elapse")
            let aborted = replace.dropLast().filter { $0.abortedByClient }.count
            #expect(aborted == replace.count - 1, "replace: every earlier run was aborted on the wire")
            let replaced = try schedule(ids["replace"] ?? "", daemon)
            #expect(replaced["skipped"] as? Int == 0)
        }
    }

    @Test("SIGKILL, down across three elapses, restart: one catch-up run late by the downtime, then the grid again")
    func catchUpAfterKill() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var daemon = try DaemonProcess(directory: directory)
        let id = try register(["--calendar", "*:*:0/2", "--tz", "UTC", "GET", server.url("/tick"), "--max-attempts", "1"], daemon)
        usleep(2_300_000)
        let runsBefore = try schedule(id, daemon)["runs"] as? Int ?? 0
        #expect(runsBefore >= 1)
        daemon.stop(signal: SIGKILL)
        let before = server.records(path: "/tick").count
        // Down for at least 6.5 s, restarting 0.3 s past an odd second: the catch-up run then
        // comes well before the next elapse on the even-second grid.
        sleepUntil(oddSecondAfter: Date().timeIntervalSince1970 + 6.5, plus: 0.3)
        daemon = try DaemonProcess(directory: directory)
        let waitedFrom = Date()
        while server.records(path: "/tick").count == before, Date().timeIntervalSince(waitedFrom) < 1.5 { usleep(10_000) }
        let view = try schedule(id, daemon)
        #expect(server.records(path: "/tick").count == before + 1, "exactly one catch-up run")
        #expect(view["runs"] as? Int == runsBefore + 1)
        #expect((view["missed"] as? Int ?? 0) >= 2)
        #expect((view["last_late_by_ms"] as? Double ?? 0) >= 5_000, "late by the downtime: \(view["last_late_by_ms"] ?? "none")")
        // The next even second, and a little after it.
        let now = Date().timeIntervalSince1970
        usleep(useconds_t(((floor(now / 2) + 1) * 2 + 0.3 - now) * 1_000_000))
        let later = try schedule(id, daemon)
        #expect(server.records(path: "/tick").count == before + 2)
        #expect(later["runs"] as? Int == runsBefore + 2)
        #expect((later["last_late_by_ms"] as? Double ?? 1_000) < 50)
        #expect((epochSeconds(later["last_elapse"]) ?? 0.5).truncatingRemainder(dividingBy: 2) == 0)
        daemon.stop()
    }

    @Test("a schedule without a request is a clock: watch --key streams its elapses until it is cancelled; list --kind schedule shows it")
    func clockForAShellLoop() throws {
        try withServerAndDaemon(try makeServer()) { _, daemon in
            let id = try register(["--every", "1s", "--key", "clock"], daemon)
            _ = try Binaries.client(["register-countdown", "--key", "other", "10m"], socket: daemon.socket)
            let watching = try Binaries.clientInBackground(["--json", "watch", "--key", "clock"], socket: daemon.socket, timeout: 10)
            usleep(3_400_000)
            #expect(try Binaries.client(["cancel", "--key", "clock"], socket: daemon.socket).status == 0)
            let outcome = watching()
            let events = outcome.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            let elapsed = events.filter { $0["event"] as? String == "elapsed" }
            #expect((2...4).contains(elapsed.count), "\(elapsed.count) elapses in 3.4 s: \(outcome.stdout)")
            #expect(elapsed.allSatisfy { $0["job"] as? String == id && $0["run"] as? String == "none" })
            #expect(events.last?["event"] as? String == "cancelled", "the stream ends with the schedule")
            #expect(outcome.status == 3, "the watch ended on its own with the schedule, cancelled (exit 3)")

            let listed = try Binaries.client(["--json", "list", "--kind", "schedule", "--state", "cancelled"], socket: daemon.socket)
            let jobs = (listed.json?["jobs"] as? [[String: Any]]) ?? []
            #expect(jobs.map { $0["id"] as? String } == [id], "\(listed.stdout)")
        }
    }

    @Test("a one-time date: its run sends the headers and body, retries what --retry-on names, is dead-lettered; the schedule ends completed")
    func runRetriesThenCompletes() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            let id = try register(
                [
                    "--calendar", calendarDate(Date().addingTimeInterval(3)), "--tz", "UTC", "POST", server.url("/gone"),
                    "-H", "X-Hook: nightly", "--data", #"{"run":1}"#,
                    "--max-attempts", "3", "--backoff", "100ms..200ms", "--retry-on", "404,5xx",
                ], daemon)
            let waited = try Binaries.client(["--json", "wait", id, "--timeout", "20s"], socket: daemon.socket)
            #expect(waited.status == 0, "a completed schedule waits out with 0: \(waited.stdout) \(waited.stderr)")
            let job = try status(id, daemon)
            #expect(job["state"] as? String == "completed")
            let view = (job["schedule"] as? [String: Any]) ?? [:]
            #expect(view["runs"] as? Int == 1 && (view["next"] as? [Any])?.isEmpty == true)
            #expect(view["last_outcome"] as? String == "dead", "\(view)")
            let run = view["last_run"] as? String ?? ""
            #expect(run.hasPrefix("rq_"))

            let attempts = server.records(path: "/gone")
            #expect(attempts.count == 3, "404 is retried because --retry-on names it, three attempts at most")
            for attempt in attempts {
                #expect(attempt.method == "POST" && attempt.body == #"{"run":1}"#)
                #expect(attempt.header("X-Hook") == "nightly")
                #expect(attempt.header("Idempotency-Key") == run, "every attempt carries the run's id")
            }
            let dead = try Binaries.client(["--json", "list", "--state", "dead"], socket: daemon.socket)
            let letters = ((dead.json?["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(letters == [run], "the run is a dead letter of its own: \(dead.stdout)")
            let ran = try status(run, daemon)
            #expect(ran["kind"] as? String == "request" && (ran["result"] as? [String: Any])?["status"] as? Int == 404)
        }
    }

    @Test("--cron in a zone through the binaries: status shows the rule and the next elapses, and it fires on the minute")
    func cronOnTheMinute() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            let id = try register(["--cron", "* * * * *", "--tz", "Asia/Kolkata", "GET", server.url("/cron"), "--max-attempts", "1"], daemon)
            let registered = Date().timeIntervalSince1970
            var view = try schedule(id, daemon)
            #expect(view["expression"] as? String == "* * * * *" && view["zone"] as? String == "Asia/Kolkata", "\(view)")
            let next = ((view["next"] as? [Any]) ?? []).compactMap(epochSeconds)
            let minute = (floor(registered / 60) + 1) * 60
            #expect(next == [minute, minute + 60, minute + 120], "the next three whole minutes: \(view["next"] ?? "none")")
            let waitedFrom = Date()
            while server.records(path: "/cron").isEmpty, Date().timeIntervalSince(waitedFrom) < 65 { usleep(50_000) }
            let requests = server.records(path: "/cron")
            #expect(requests.count == 1)
            view = try schedule(id, daemon)
            #expect(view["runs"] as? Int == 1 && epochSeconds(view["last_elapse"]) == minute)
            #expect((view["last_late_by_ms"] as? Double ?? 1_000) < 50)
            #expect(try Binaries.client(["cancel", id], socket: daemon.socket).status == 0)
        }
    }

    @Test("the options through the binaries: --catch-up, --randomized-delay, --scope, --ephemeral; --bind-connection ends with its client; cancel --abort aborts the run")
    func optionsThroughTheBinaries() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            let registered = Date().timeIntervalSince1970
            let id = try register(
                ["--every", "1h", "--catch-up", "none", "--randomized-delay", "30s", "--fixed-delay", "--scope", "nightly", "--ephemeral", "--key", "opts"],
                daemon)
            let job = try status(id, daemon)
            let view = (job["schedule"] as? [String: Any]) ?? [:]
            #expect(view["catch_up"] as? String == "none" && view["randomized_delay_ms"] as? Int == 30_000, "\(view)")
            #expect(job["scope"] as? String == "nightly" && job["durable"] as? Bool == false && job["key"] as? String == "opts")
            let next = ((view["next"] as? [Any]) ?? []).compactMap(epochSeconds)
            #expect(abs((next.first ?? 0) - registered - 3_600) < 5, "an hour from registration, before its delay: \(next)")
            let scoped = try Binaries.client(["--json", "list", "--scope", "nightly"], socket: daemon.socket)
            #expect(((scoped.json?["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == [id])

            // The client is killed while it follows: its schedule ends with its connection. (KILL:
            // a test runner may leave its children ignoring SIGTERM.)
            _ = try Binaries.run(
                "/usr/bin/timeout",
                ["-s", "KILL", "2.5", Binaries.client, "--socket", daemon.socket, "register-schedule", "--every", "1s", "--key", "bound", "--bind-connection", "--follow"],
                timeout: 10)
            let bound = try Binaries.client(["--json", "list", "--key", "bound"], socket: daemon.socket)
            let boundJob = (bound.json?["jobs"] as? [[String: Any]])?.first
            #expect(boundJob?["state"] as? String == "cancelled" && boundJob?["reason"] as? String == "connection_closed", "\(bound.stdout)")

            // cancel --abort: the run in flight is cancelled and its request aborted on the wire.
            let slow = try register(["--every", "1s", "--key", "slow", "GET", server.url("/slow/abort"), "--max-attempts", "1"], daemon)
            let deadline = Date().addingTimeInterval(5)
            while server.records(path: "/slow/abort").isEmpty, Date() < deadline { usleep(20_000) }
            let run = try schedule(slow, daemon)["running"] as? String ?? ""
            #expect(run.hasPrefix("rq_"))
            #expect(try Binaries.client(["cancel", "--abort", "--key", "slow"], socket: daemon.socket).status == 0)
            let aborted = Date().addingTimeInterval(3)
            while server.records(path: "/slow/abort").first?.abortedByClient != true, Date() < aborted { usleep(20_000) }
            #expect(server.records(path: "/slow/abort").map(\.abortedByClient) == [true])
            #expect(try status(slow, daemon)["state"] as? String == "cancelled" && (try status(run, daemon))["state"] as? String == "cancelled")
        }
    }

    @Test("pause stops elapses, resume goes on from the next one, cancel ends the schedule")
    func pauseResumeCancel() throws {
        try withServerAndDaemon(try makeServer()) { server, daemon in
            let id = try register(["--every", "1s", "--key", "ping", "GET", server.url("/ping"), "--max-attempts", "1"], daemon)
            usleep(1_500_000)
            #expect(try Binaries.client(["pause", "--key", "ping"], socket: daemon.socket).stdout.contains("paused \(id)"))
            let paused = server.records(path: "/ping").count
            usleep(2_500_000)
            #expect(server.records(path: "/ping").count == paused, "no request while paused")
            #expect(try schedule(id, daemon)["paused"] as? Bool == true)
            #expect(try Binaries.client(["resume", id], socket: daemon.socket).status == 0)
            usleep(1_600_000)
            #expect(server.records(path: "/ping").count > paused, "requests again after resume")
            #expect(try schedule(id, daemon)["missed"] as? Int == 0)
            #expect(try Binaries.client(["cancel", id], socket: daemon.socket).status == 0)
            let cancelled = server.records(path: "/ping").count
            usleep(2_000_000)
            #expect(server.records(path: "/ping").count == cancelled)
            #expect(try status(id, daemon)["state"] as? String == "cancelled")
            let refused = try Binaries.client(["register-schedule", "--calendar", "*-02-30"], socket: daemon.socket)
            #expect(refused.status == 11 && refused.stderr.contains("bad_schedule") && refused.stderr.contains("day field"), "\(refused.stderr)")
        }
    }
}
