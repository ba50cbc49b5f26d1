import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// `/busy` answers its first request 429 with `Retry-After: 2`; anything else 200 at once.
private func makeServer() throws -> TestHTTPServer {
    let busy = Mutex(0)
    return try TestHTTPServer { record in
        guard record.path == "/busy", busy.withLock({ count in count += 1; return count }) == 1 else { return TestHTTPServer.Reply(body: "{}") }
        var reply = TestHTTPServer.Reply(status: 429, body: "{}")
        reply.headers.append(("Retry-After", "2"))
        return reply
    }
}

/// A daemon whose configuration file gives the test server's target `table`.
private func withLimitedTarget(_ table: String, _ body: (TestHTTPServer, DaemonProcess) throws -> Void) throws {
    let server = try makeServer()
    let file = makeTemporaryDirectory() + "/reqd.toml"
    defer { try? FileManager.default.removeItem(atPath: file) }
    try "[targets.\"127.0.0.1:\(server.port)\"]\n\(table)\n".write(toFile: file, atomically: true, encoding: .utf8)
    try withServerAndDaemon(server, daemonArguments: ["--config", file], body)
}

private func submit(_ url: String, _ daemon: DaemonProcess) throws {
    let outcome = try Binaries.client(["submit", "-q", "POST", url, "--data", "{}", "--max-attempts", "3"], socket: daemon.socket)
    #expect(outcome.status == 0, "\(outcome.stderr)")
}

@Suite("[targets.\"HOST:PORT\"] limits, end to end", .serialized)
struct TargetBinaryTests {
    @Test("rate 5/s, burst 1: 12 submits reach the server 200 ms apart, never more than 6 in a second; status --targets shows the target")
    func rate() throws {
        try withLimitedTarget("rate = \"5/s\"\nburst = 1") { server, daemon in
            for index in 0..<12 { try submit(server.url("/r/\(index)"), daemon) }
            let view = try Binaries.client(["--json", "status", "--targets"], socket: daemon.socket)
            let target = try #require((view.json?["targets"] as? [[String: Any]])?.first)
            #expect(target["target"] as? String == "127.0.0.1:\(server.port)")
            #expect(target["rate"] as? String == "5/s" && target["concurrency"] as? Int == 64)
            let text = try Binaries.client(["status", "--targets"], socket: daemon.socket).stdout
            #expect(text.contains("TARGET") && text.contains("127.0.0.1:\(server.port)") && text.contains("5/s"), "\(text)")
            let deadline = Date().addingTimeInterval(10)
            while server.records.filter({ $0.path.hasPrefix("/r/") }).count < 12, Date() < deadline { usleep(50_000) }
            let starts = server.records.filter { $0.path.hasPrefix("/r/") }.map { Double($0.start) / 1e9 }.sorted()
            #expect(starts.count == 12)
            for (earlier, later) in zip(starts, starts.dropFirst()) {
                #expect(later - earlier > 0.15, "two requests \(Int((later - earlier) * 1000)) ms apart")
            }
            for first in starts {
                #expect(starts.filter { $0 >= first && $0 < first + 1 }.count <= 6)
            }
            let span = (starts.last ?? 0) - (starts.first ?? 0)
            #expect(span > 2.0 && span < 2.6, "12 requests at 5/s took \(span) s")
        }
    }

    @Test("rate 50/s, burst 10: 150 submits at once reach the server with never more than rate + burst in a second, the burst at once")
    func burst() throws {
        try withLimitedTarget("rate = \"50/s\"\nburst = 10") { server, daemon in
            let lines = (0..<150).map { #"{"id":\#($0),"op":"submit","url":"\#(server.url("/b/\($0)"))","max_attempts":1,"ephemeral":true}"# }
            let piped = try Binaries.run(
                "/bin/sh", ["-c", "printf '%s\\n' \"$1\" | /usr/bin/socat -t 30 - UNIX-CONNECT:\"$2\"", "sh", lines.joined(separator: "\n"), daemon.socket],
                timeout: 40)
            #expect(piped.stdout.split(separator: "\n").filter { $0.contains(#""ok":true"#) }.count == 150, "\(piped.stdout.prefix(300))")
            let deadline = Date().addingTimeInterval(10)
            while server.records.filter({ $0.path.hasPrefix("/b/") }).count < 150, Date() < deadline { usleep(50_000) }
            let starts = server.records.filter { $0.path.hasPrefix("/b/") }.map(\.start).sorted()
            #expect(starts.count == 150)
            var busiest = 0
            for (index, first) in starts.enumerated() {
                busiest = max(busiest, starts[index...].prefix { $0 - first < 1_000_000_000 }.count)
            }
            #expect(busiest <= 60, "\(busiest) requests in one second at 50/s with a burst of 10")
            #expect(starts.count == 150 && starts[9] - starts[0] < 200_000_000, "the burst's 10 went at once")
            let span = Double((starts.last ?? 0) - (starts.first ?? 0)) / 1e9
            // 140 at 50/s after the burst: 2.8 s from the first write, less what the burst's first
            // connection took.
            #expect(span > 2.6 && span < 3.6, "150 requests at 50/s after a burst of 10 took \(span) s")
        }
    }

    @Test("a 429 with Retry-After: 2 pauses the whole target: another job's request to it waits 2 s")
    func retryAfterPauses() throws {
        try withLimitedTarget("concurrency = 8") { server, daemon in
            try submit(server.url("/busy"), daemon)
            let deadline = Date().addingTimeInterval(5)
            while server.records(path: "/busy").isEmpty, Date() < deadline { usleep(20_000) }
            usleep(200_000)
            try submit(server.url("/other"), daemon)
            while server.records(path: "/other").isEmpty, Date() < deadline.addingTimeInterval(5) { usleep(20_000) }
            let busy = try #require(server.records(path: "/busy").first)
            let other = try #require(server.records(path: "/other").first)
            let waited = Double(other.start - busy.start) / 1e9
            #expect(waited > 1.9 && waited < 3, "the other request went \(waited) s after the 429")
        }
    }

    @Test("a breaker opens after 3 failures in a row: nothing more reaches the server until one probe after open_for, whose success sends the held job")
    func breaker() throws {
        let failing = Mutex(true)
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: failing.withLock { $0 } ? 500 : 200, body: "{}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/reqd.toml"
        try """
            [targets."127.0.0.1:\(server.port)"]
            breaker_failure_ratio = 1
            breaker_min_requests = 3
            breaker_open_for = "2s"
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file], logFile: log)
        defer { daemon.stop() }
        for index in 0..<3 {
            let outcome = try Binaries.client(["submit", "-q", "POST", server.url("/f/\(index)"), "--max-attempts", "1"], socket: daemon.socket)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        let deadline = Date().addingTimeInterval(10)
        func breakerState() throws -> String? {
            let view = try Binaries.client(["--json", "status", "--targets"], socket: daemon.socket)
            let target = (view.json?["targets"] as? [[String: Any]])?.first { $0["target"] as? String == "127.0.0.1:\(server.port)" }
            return (target?["breaker"] as? [String: Any])?["state"] as? String
        }
        while try breakerState() != "open", Date() < deadline { usleep(50_000) }
        #expect(try breakerState() == "open")
        let table = try Binaries.client(["status", "--targets"], socket: daemon.socket).stdout
        #expect(table.contains("BREAKER") && table.contains("open until") && table.contains("holding: breaker open"), "\(table)")
        let submitted = try Binaries.client(["submit", "-q", "POST", server.url("/held"), "--max-attempts", "3"], socket: daemon.socket)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        failing.withLock { $0 = false }
        while server.records(path: "/held").isEmpty, Date() < deadline { usleep(20_000) }
        let lastFailure = try #require(server.records.filter { $0.path.hasPrefix("/f/") }.map(\.start).max())
        let probe = try #require(server.records(path: "/held").first)
        let waited = Double(probe.start - lastFailure) / 1e9
        #expect(waited > 1.9 && waited < 4, "the probe went \(waited) s after the breaker opened, open_for 2s")
        #expect(server.records.count == 4, "nothing but the probe reached the server while the breaker was open")
        while try breakerState() != "closed", Date() < deadline { usleep(50_000) }
        #expect(try breakerState() == "closed")
        let metrics = try Binaries.client(["metrics"], socket: daemon.socket).stdout
        for state in ["open", "half_open", "closed"] {
            #expect(metrics.contains("reqd_breaker_transitions_total{state=\"\(state)\"} 1"), "\(state)")
        }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("circuit breaker of 127.0.0.1:\(server.port) open: 3 of 3 requests in the last 1m failed"), "\(text.suffix(2_000))")
        #expect(text.contains("circuit breaker of 127.0.0.1:\(server.port) closed: the probe succeeded"))
    }

    @Test("SIGHUP while a request is on the wire: it is not dropped, and the new rate, burst, concurrency and decompress apply to what follows")
    func reloadWithRequestInFlight() throws {
        let server = try TestHTTPServer { record in
            TestHTTPServer.Reply(body: "{}", delayNanos: record.path == "/slow" ? 2_000_000_000 : record.path.hasPrefix("/after/") ? 700_000_000 : 0)
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/reqd.toml"
        let table = "[targets.\"127.0.0.1:\(server.port)\"]\n"
        try (table + "rate = \"100/s\"\nconcurrency = 4\n").write(toFile: file, atomically: true, encoding: .utf8)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file], logFile: log)
        defer { daemon.stop() }

        let slow = try Binaries.client(["submit", "-q", "GET", server.url("/slow"), "--max-attempts", "1"], socket: daemon.socket)
        let id = slow.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let deadline = Date().addingTimeInterval(5)
        while server.records(path: "/slow").isEmpty, Date() < deadline { usleep(10_000) }
        try (table + "rate = \"2/s\"\nburst = 1\nconcurrency = 1\ndecompress = false\n").write(toFile: file, atomically: true, encoding: .utf8)
        daemon.reload(expecting: "configuration reloaded", count: 1, in: log)
        let view = try Binaries.client(["--json", "status", "--targets"], socket: daemon.socket)
        let target = try #require((view.json?["targets"] as? [[String: Any]])?.first)
        #expect(target["rate"] as? String == "2/s" && target["burst"] as? Int == 1 && target["concurrency"] as? Int == 1, "\(target)")
        #expect(target["in_flight"] as? Int == 1, "the request on the wire is still counted: \(target)")

        let waited = try Binaries.client(["--json", "wait", id, "--timeout", "10s"], socket: daemon.socket)
        #expect(waited.status == 0, "the request in flight ended succeeded: \(waited.stdout)")
        let records = server.records(path: "/slow")
        #expect(records.count == 1 && records.first?.abortedByClient == false && records.first?.status == 200)

        // What follows: one at a time (concurrency 1), two a second after a burst of one, and
        // asking for an uncompressed answer.
        for index in 0..<3 {
            _ = try Binaries.client(["submit", "-q", "GET", server.url("/after/\(index)"), "--max-attempts", "1"], socket: daemon.socket)
        }
        let until = Date().addingTimeInterval(8)
        while server.records.filter({ $0.path.hasPrefix("/after/") && $0.end != nil }).count < 3, Date() < until { usleep(20_000) }
        let after = server.records.filter { $0.path.hasPrefix("/after/") }.sorted { $0.start < $1.start }
        #expect(after.count == 3)
        #expect(after.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        // Each answer takes 700 ms, longer than the rate's 500 ms: concurrency 1 makes them wait in line.
        for (earlier, later) in zip(after, after.dropFirst()) {
            #expect(later.start >= earlier.end ?? .max, "two requests on the wire at once under concurrency 1")
        }
        let span = Double((after.last?.start ?? 0) - (after.first?.start ?? 0)) / 1e9
        #expect(span > 1.3 && span < 2.2, "3 requests of 700 ms, one at a time, started over \(span) s")
    }

    @Test("SIGHUP raises http.max_connections_per_host: requests waiting behind one on the wire start at once, and that one ends well on the old clients")
    func reloadConnectionsPerHost() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}", delayNanos: 1_500_000_000) }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/reqd.toml"
        try "[http]\nmax_connections_per_host = 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file], logFile: log)
        defer { daemon.stop() }
        var ids: [String] = []
        for index in 0..<3 {
            let submitted = try Binaries.client(["submit", "-q", "GET", server.url("/slow/\(index)"), "--max-attempts", "1"], socket: daemon.socket)
            ids.append(submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let deadline = Date().addingTimeInterval(5)
        while server.records.isEmpty, Date() < deadline { usleep(10_000) }
        usleep(200_000)
        #expect(server.records.count == 1, "one request at a time under max_connections_per_host 1")

        try "[http]\nmax_connections_per_host = 3\n".write(toFile: file, atomically: true, encoding: .utf8)
        daemon.reload(expecting: "configuration reloaded", count: 1, in: log)
        #expect(try !String(contentsOfFile: log, encoding: .utf8).contains("change only on restart"))
        let until = Date().addingTimeInterval(5)
        while server.records.count < 3, Date() < until { usleep(10_000) }
        let records = server.records.sorted { $0.start < $1.start }
        #expect(records.count == 3)
        let first = try #require(records.first)
        #expect(records.dropFirst().allSatisfy { $0.start < first.end ?? .max }, "the two waiting started while the first was on the wire")
        for id in ids {
            let waited = try Binaries.client(["wait", id, "--timeout", "10s"], socket: daemon.socket)
            #expect(waited.status == 0, "\(id): \(waited.stdout) \(waited.stderr)")
        }
        #expect(server.records.allSatisfy { $0.status == 200 && !$0.abortedByClient })
    }

    @Test("a configuration with a bad target table is refused naming the key")
    func badTable() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/reqd.toml"
        for (table, words) in [
            ("[targets.\"api.example.com\"]\nrate = \"20/d\"", "targets.\"api.example.com\".rate"),
            ("[targets.\"api.example.com:0\"]\nburst = 2", "not a target"),
            ("[targets.default]\nspeed = 3", "rate, burst, concurrency"),
            ("[targets.default]\nconcurrency = 100", "max_connections_per_host"),
        ] {
            try table.write(toFile: file, atomically: true, encoding: .utf8)
            let outcome = try Binaries.run(Binaries.reqd, ["--config", file, "--check-config"])
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains(words), "\(outcome.stderr)")
        }
    }
}
