import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// `reqd-client --json status JOB --attempts`, parsed.
private func attempts(of job: String, socket: String) throws -> [[String: Any]] {
    let outcome = try Binaries.client(["--json", "status", job, "--attempts"], socket: socket)
    #expect(outcome.status == 0, "\(outcome.stderr)")
    let reply = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
    let view = try #require(reply?["job"] as? [String: Any])
    return try #require(view["attempts"] as? [[String: Any]])
}

@Suite("Attempt logs through the binaries: status --attempts, the address connected to, a restart", .serialized)
struct AttemptLogBinaryTests {
    /// A server whose first answer is 503 and the rest 200, each with an `X-Trace` header.
    private static func flakyServer() throws -> TestHTTPServer {
        let answers = Mutex(0)
        return try TestHTTPServer { _ in
            let count = answers.withLock { count in count += 1; return count }
            var reply = TestHTTPServer.Reply(status: count == 1 ? 503 : 200, body: "{\"n\":\(count)}")
            reply.headers.append(("X-Trace", "answer-\(count)"))
            return reply
        }
    }

    @Test("a durable job's attempts show start, duration, 127.0.0.1:PORT, status and headers; the private tag header never reaches the server; they survive a restart")
    func durable() throws {
        let server = try Self.flakyServer()
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var daemon: DaemonProcess? = try DaemonProcess(directory: directory)
        let outcome = try Binaries.client(
            ["--json", "submit", "POST", server.url("/hook"), "--data", "{}", "--max-attempts", "3", "--backoff", "100ms..200ms", "--wait"],
            socket: daemon!.socket, timeout: 15)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let records = server.records(path: "/hook")
        try #require(records.count == 2)
        let job = try #require(records[0].header("Idempotency-Key"))
        #expect(records.allSatisfy { $0.header("x-reqd-attempt") == nil }, "the tag is taken out before the request is encoded")

        for round in ["before the restart", "after the restart, from the store"] {
            let log = try attempts(of: job, socket: daemon!.socket)
            try #require(log.count == 2, "\(round)")
            #expect(log.map { $0["number"] as? Int } == [1, 2], "\(round)")
            #expect(log.map { $0["status"] as? Int } == [503, 200], "\(round)")
            #expect(log.allSatisfy { $0["address"] as? String == "127.0.0.1:\(server.port)" }, "\(round): \(log)")
            #expect(log.allSatisfy { ($0["duration_ms"] as? Double ?? -1) >= 0 && $0["started_at"] is String }, "\(round)")
            let headers = log.map { ($0["headers"] as? [String]) ?? [] }
            #expect(headers[0].contains("X-Trace: answer-1") && headers[1].contains("X-Trace: answer-2"), "\(round): \(headers)")
            if round.hasPrefix("before") {
                daemon?.stop()
                daemon = try DaemonProcess(directory: directory)
            }
        }
        let human = try Binaries.client(["status", job, "--attempts"], socket: daemon!.socket)
        #expect(human.status == 0)
        #expect(human.stdout.contains("attempt 1") && human.stdout.contains("attempt 2"), "\(human.stdout)")
        #expect(human.stdout.contains("127.0.0.1:\(server.port)  status 503"), "\(human.stdout)")
        #expect(human.stdout.contains("X-Trace: answer-2"), "\(human.stdout)")
        let plain = try Binaries.client(["--json", "status", job], socket: daemon!.socket)
        #expect(!plain.stdout.contains("\"attempts\":["), "only when asked")
        let misuse = try Binaries.client(["status", "--attempts"], socket: daemon!.socket)
        #expect(misuse.status != 0 && misuse.stderr.contains("--attempts goes with a job id"), "\(misuse.stderr)")
        daemon?.stop()
    }

    @Test("through the target gate (http.deny set), the address is the target's, not the gate's; a refused connection logs its error")
    func throughTheGate() throws {
        let server = try Self.flakyServer()
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/reqd.toml"
        try "[http]\ndeny = [\"169.254.0.0/16\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", config])
        defer { daemon.stop() }
        let outcome = try Binaries.client(
            ["--json", "submit", "GET", server.url("/gated"), "--max-attempts", "3", "--backoff", "100ms..200ms", "--wait"],
            socket: daemon.socket, timeout: 15)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let job = try #require(server.records(path: "/gated").first?.header("Idempotency-Key"))
        let log = try attempts(of: job, socket: daemon.socket)
        #expect(log.map { $0["address"] as? String } == ["127.0.0.1:\(server.port)", "127.0.0.1:\(server.port)"], "\(log)")

        // Nothing listens on a port just freed: the attempt has an error and no address.
        let closed = try TestHTTPServer { _ in TestHTTPServer.Reply() }
        let url = closed.url("/gone")
        closed.shutdown()
        let refused = try Binaries.client(["--json", "submit", "GET", url, "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 15)
        let firstLine = refused.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let reply = try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any]
        let id = try #require((reply?["job"] as? [String: Any])?["id"] as? String, "\(refused.stdout)")
        let failed = try attempts(of: id, socket: daemon.socket)
        try #require(failed.count == 1)
        #expect(failed[0]["address"] == nil && (failed[0]["error"] as? String)?.isEmpty == false, "\(failed)")
    }

    @Test("an attempt aborted at http.request_timeout is logged with its error and, once the executor says, the address it hung on")
    func timedOut() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: "{}", delayNanos: 3_000_000_000) }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/reqd.toml"
        try "[http]\nrequest_timeout = \"500ms\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", config])
        defer { daemon.stop() }
        let outcome = try Binaries.client(
            ["--json", "submit", "GET", server.url("/slow"), "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 15)
        #expect(outcome.status == 5, "dead after its one attempt: \(outcome.stderr)")
        let job = try #require(server.records(path: "/slow").first?.header("Idempotency-Key"))
        var log: [[String: Any]] = []
        for _ in 0..<40 {
            log = try attempts(of: job, socket: daemon.socket)
            if log.first?["address"] != nil { break }
            usleep(50_000)
        }
        try #require(log.count == 1)
        #expect(log[0]["error"] as? String == "no answer within 500ms", "\(log)")
        #expect(log[0]["address"] as? String == "127.0.0.1:\(server.port)", "\(log)")
        #expect((log[0]["duration_ms"] as? Double ?? 0) >= 500)
    }

    /// Registers a durable poll of `url` until a 200, and returns its id.
    private static func registerPoll(_ url: String, every: String, socket: String) throws -> String {
        let registered = try Binaries.client(["--json", "register-poll", url, "--every", every, "--until", "status == 200"], socket: socket)
        #expect(registered.status == 0, "\(registered.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(registered.stdout.utf8)) as? [String: Any]
        return try #require((reply?["job"] as? [String: Any])?["id"] as? String)
    }

    @Test("a durable poll's attempts, held in memory while it runs, are written at a clean stop and shown after the restart")
    func pollAcrossRestart() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 202, body: "{\"state\":\"running\"}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var daemon = try DaemonProcess(directory: directory)
        let job = try Self.registerPoll(server.url("/state"), every: "300ms", socket: daemon.socket)
        for _ in 0..<200 where server.records(path: "/state").count < 3 { usleep(20_000) }
        let running = try attempts(of: job, socket: daemon.socket)
        #expect(running.count >= 3 && running.allSatisfy { $0["status"] as? Int == 202 }, "\(running)")
        let lastBefore = try #require(running.last?["number"] as? Int)
        daemon.stop()
        daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }
        let restored = try attempts(of: job, socket: daemon.socket)
        let numbers = restored.compactMap { $0["number"] as? Int }
        // At most a poll or two after the read above and after the restart: the attempts made
        // before the stop are still among the last 5, so they came from the store.
        #expect(numbers.contains(lastBefore) && numbers.contains(lastBefore - 1), "\(numbers); \(lastBefore) was the last before the stop")
        #expect(numbers == numbers.sorted())
        #expect(restored.allSatisfy { $0["address"] as? String == "127.0.0.1:\(server.port)" })
    }

    @Test("after a SIGKILL, a durable poll's log has what poll.attempts_write_interval wrote: attempts from within the interval before the kill")
    func pollAcrossKill() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 202, body: "{\"state\":\"running\"}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let interval = ["--set", "poll.attempts_write_interval=1s"]
        var daemon = try DaemonProcess(directory: directory, extraArguments: interval)
        let job = try Self.registerPoll(server.url("/state"), every: "200ms", socket: daemon.socket)
        for _ in 0..<300 where server.records(path: "/state").count < 12 { usleep(20_000) }
        #expect(server.records(path: "/state").count >= 12)
        let killed = Date()
        daemon.stop(signal: SIGKILL)
        daemon = try DaemonProcess(directory: directory, extraArguments: interval)
        defer { daemon.stop() }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let restored = try attempts(of: job, socket: daemon.socket)
        let started = restored.compactMap { ($0["started_at"] as? String).flatMap(formatter.date(from:)) }
        #expect(started.count == restored.count && started == started.sorted(), "\(restored)")
        // Polls every 200 ms, written once the next would start 1 s or more after the first
        // unwritten one: the newest attempt from before the kill started at most about 1.5 s
        // before it. Without the interval the store would have none. (The restarted daemon's
        // own attempts started after the kill.)
        let newest = try #require(started.last { $0 < killed }, "the store had no attempt from before the kill: \(restored)")
        #expect(killed.timeIntervalSince(newest) < 1.6, "the newest stored attempt started \(killed.timeIntervalSince(newest)) s before the kill")
    }
}
