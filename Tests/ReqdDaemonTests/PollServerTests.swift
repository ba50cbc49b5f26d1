import Foundation
import ReqdDaemon
import ReqdTestSupport
import Synchronization
import Testing

private let ms: Int64 = 1_000_000

/// Starts a daemon that accepts short poll intervals, for tests that must not take long.
private func startPollDaemon(in directory: TemporaryDirectory, configure: (inout Configuration) -> Void = { _ in }) throws -> Daemon {
    try startDaemon(in: directory) { configuration in
        configuration.scheduler.minPollEveryNanos = 10 * ms
        configure(&configuration)
    }
}

private func poll(_ url: String, every: Int, until: String = #"/state == "done""#, extra: [String: Any] = [:]) -> [String: Any] {
    var request: [String: Any] = ["op": "register-poll", "url": url, "every_ms": every, "until": until]
    request.merge(extra) { $1 }
    return request
}

/// Answers a path with each body of a script in turn, then repeats the last one.
private final class Script: Sendable {
    private let replies: Mutex<[String: [TestHTTPServer.Reply]]>

    init(_ replies: [String: [TestHTTPServer.Reply]]) { self.replies = Mutex(replies) }

    func reply(path: String) -> TestHTTPServer.Reply {
        replies.withLock { replies in
            guard var list = replies[path], !list.isEmpty else { return TestHTTPServer.Reply(status: 404, body: "{}") }
            let next = list.count > 1 ? list.removeFirst() : list[0]
            replies[path] = list
            return next
        }
    }
}

@Suite("Poll jobs against a real HTTP server", .serialized)
struct PollServerTests {
    @Test("remote jobs with random progress and latency: no overlap, no idle gap, progress forward, success")
    func randomRemoteJobs() throws {
        let every = 60
        let simulation = RemoteJobSimulation(seed: 2026, intervalNanos: Int64(every) * ms, maxStep: 15)
        let server = try TestHTTPServer { simulation.reply(path: $0.path) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 30)

        let paths = (1...6).map { "/jobs/\($0)" }
        var ids: [String: String] = [:]
        for (index, path) in paths.enumerated() {
            let reply = try #require(
                client.call(poll(server.url(path), every: every, extra: ["id": index, "progress": "/progress", "follow": true])))
            ids[try #require(reply.job?["id"] as? String)] = path
        }
        var progress: [String: [Double]] = [:]
        var ended: [String: String] = [:]
        while ended.count < paths.count, let line = client.next() {
            guard let type = line["event"] as? String, let job = line["job"] as? String else { continue }
            if type == "progress", let value = line["progress"] as? Double { progress[job, default: []].append(value) }
            if ["succeeded", "failed", "timed_out", "cancelled"].contains(type) { ended[job] = type }
        }
        #expect(ended.count == paths.count)
        #expect(ended.values.allSatisfy { $0 == "succeeded" })
        for (job, values) in progress {
            #expect(values == values.sorted(), "progress of \(job) went backwards: \(values)")
            #expect(Set(values).count == values.count)
            #expect(values.last == 100)
        }

        var slowAnswers = 0
        for path in paths {
            let records = server.records(path: path)
            #expect(records.count >= 7)
            for (previous, next) in zip(records, records.dropFirst()) {
                let previousEnd = try #require(previous.end)
                // Never two requests of one job in flight.
                #expect(next.start >= previousEnd, "\(path): a request started before the previous one ended")
                let latency = Int64(previousEnd - previous.start)
                let gap = Int64(next.start) - Int64(previousEnd)
                if latency > Int64(every) * ms {
                    slowAnswers += 1
                    // After a slow answer, the next request starts at once.
                    #expect(gap < 40 * ms, "\(path): idle gap of \(gap / ms) ms after a slow answer")
                } else {
                    // After a fast one, it waits for the interval since the last start, and not much longer.
                    let sinceStart = Int64(next.start - previous.start)
                    #expect(sinceStart >= Int64(every - 5) * ms, "\(path): started after \(sinceStart / ms) ms")
                    #expect(sinceStart < Int64(every + 40) * ms, "\(path): waited \(sinceStart / ms) ms")
                }
            }
        }
        #expect(slowAnswers > 5)
    }

    @Test("progress never goes backwards even when the server reports a lower value")
    func progressForwardOnly() throws {
        let bodies = [10, 40, 20, 60, 50, 60, 100].map { value in
            TestHTTPServer.Reply(body: #"{"state":"\#(value == 100 ? "done" : "running")","progress":\#(value)}"#)
        }
        let script = Script(["/p": bodies])
        let server = try TestHTTPServer { script.reply(path: $0.path) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        _ = try #require(client.call(poll(server.url("/p"), every: 20, extra: ["id": 1, "progress": "/progress", "follow": true])))
        var reported: [Double] = []
        var polled = 0
        while let line = client.next() {
            let type = line["event"] as? String
            if type == "progress", let value = line["progress"] as? Double { reported.append(value) }
            if type == "polled" { polled += 1 }
            if type == "succeeded" { break }
        }
        #expect(reported == [10, 40, 60, 100])
        #expect(polled == 3)
    }

    @Test("500, 429, non-JSON and closed connections count as failures; the limit ends the job failed")
    func failuresEndTheJob() throws {
        let script = Script([
            "/f": [
                TestHTTPServer.Reply(status: 500, body: "{}"), TestHTTPServer.Reply(status: 429, body: "{}"),
                TestHTTPServer.Reply(body: "<html>oops</html>", contentType: "text/html"), .close(),
            ],
            "/reset": [
                TestHTTPServer.Reply(status: 503, body: "{}"), TestHTTPServer.Reply(body: #"{"state":"running"}"#),
                TestHTTPServer.Reply(status: 503, body: "{}"), TestHTTPServer.Reply(body: #"{"state":"done"}"#),
            ],
        ])
        let server = try TestHTTPServer { script.reply(path: $0.path) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)

        let failing = try #require(client.call(poll(server.url("/f"), every: 20, extra: ["id": 1, "max_failures": 4])))
        let failingID = try #require(failing.job?["id"] as? String)
        let failed = try #require(client.call(["id": 2, "op": "wait", "job": failingID]))
        #expect(failed.job?["state"] as? String == "failed")
        let error = try #require(failed.job?["error"] as? String)
        #expect(error.contains("4 polls in a row failed"))
        #expect(error.contains("closed the connection"))
        #expect((failed.job?["poll"] as? [String: Any])?["polls"] as? Int == 4)
        #expect(server.records(path: "/f").count == 4)

        // Two failures, but never two in a row: one good answer resets the count.
        let resetting = try #require(client.call(poll(server.url("/reset"), every: 20, extra: ["id": 3, "max_failures": 2])))
        let resetID = try #require(resetting.job?["id"] as? String)
        let done = try #require(client.call(["id": 4, "op": "wait", "job": resetID]))
        #expect(done.job?["state"] as? String == "succeeded")
        #expect((done.job?["result"] as? [String: Any])?["body"] as? String == #"{"state":"done"}"#)
    }

    @Test("the total time limit ends the job timed_out and cancels the request on the wire")
    func timeoutCancelsOnTheWire() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: #"{"state":"done"}"#, delayNanos: 5_000 * ms) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let registered = try #require(client.call(poll(server.url("/slow"), every: 50, extra: ["id": 1, "timeout_ms": 300])))
        let id = try #require(registered.job?["id"] as? String)
        let started = Date()
        let ended = try #require(client.call(["id": 2, "op": "wait", "job": id]))
        #expect(ended.job?["state"] as? String == "timed_out")
        #expect(Date().timeIntervalSince(started) < 2)
        // The server sees the client go away long before its 5 s answer.
        var aborted = false
        for _ in 0..<100 where !aborted {
            aborted = server.records(path: "/slow").first?.abortedByClient == true
            if !aborted { usleep(20_000) }
        }
        #expect(aborted)
        #expect(server.records(path: "/slow").count == 1)
    }

    @Test("cancel aborts the request that is out, on the wire")
    func cancelAbortsOnTheWire() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}", delayNanos: 5_000 * ms) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let registered = try #require(client.call(poll(server.url("/c"), every: 50, extra: ["id": 1, "ephemeral": true])))
        let id = try #require(registered.job?["id"] as? String)
        for _ in 0..<100 where server.records(path: "/c").isEmpty { usleep(10_000) }
        let cancelled = try #require(client.call(["id": 2, "op": "cancel", "job": id]))
        #expect(cancelled.result?["cancelled"] as? [String] == [id])
        var aborted = false
        for _ in 0..<100 where !aborted {
            aborted = server.records(path: "/c").first?.abortedByClient == true
            if !aborted { usleep(20_000) }
        }
        #expect(aborted)
    }

    @Test("a poll job resumes after a daemon restart with its id, counters and progress")
    func resumesAfterRestart() throws {
        let simulation = RemoteJobSimulation(seed: 9, intervalNanos: 1 * ms, maxStep: 3)
        let server = try TestHTTPServer { simulation.reply(path: $0.path) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        var daemon = try startPollDaemon(in: directory)
        var client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let registered = try #require(
            client.call(poll(server.url("/r"), every: 30, extra: ["id": 1, "progress": "/progress", "follow": true])))
        let id = try #require(registered.job?["id"] as? String)
        var lastProgress = 0.0
        while let event = client.event("progress"), let value = event["progress"] as? Double {
            lastProgress = value
            if value >= 12 { break }
        }
        daemon.stop()
        let pollsBefore = server.records(path: "/r").filter { $0.status != nil }.count

        daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        client = try LineClient(path: daemon.socketPath, timeoutSeconds: 20)
        let status = try #require(client.call(["id": 2, "op": "status", "job": id]))
        #expect(status.job?["state"] as? String == "active")
        let pollInfo = try #require(status.job?["poll"] as? [String: Any])
        #expect((pollInfo["progress"] as? Double ?? 0) >= lastProgress)
        #expect((pollInfo["polls"] as? Int ?? 0) >= pollsBefore - 1)
        #expect((pollInfo["polls"] as? Int ?? 0) > 0)
        let ended = try #require(client.call(["id": 3, "op": "wait", "job": id]))
        #expect(ended.job?["state"] as? String == "succeeded")
        let finalPolls = (ended.job?["poll"] as? [String: Any])?["polls"] as? Int ?? 0
        #expect(finalPolls >= pollsBefore)
    }

    @Test("method, headers and body reach the server; redirects are followed")
    func requestShapeAndRedirects() throws {
        let server = try TestHTTPServer { record in
            if record.path == "/old" {
                var reply = TestHTTPServer.Reply(status: 302, body: "")
                reply.headers.append(("Location", "/new"))
                return reply
            }
            return TestHTTPServer.Reply(body: #"{"state":"done"}"#)
        }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let shaped = try #require(
            client.call(
                poll(
                    server.url("/shape"), every: 50,
                    extra: ["id": 1, "method": "post", "headers": ["X-Token: s3cret", "Accept: application/json"], "body": #"{"q":1}"#])))
        let shapedID = try #require(shaped.job?["id"] as? String)
        #expect(client.call(["id": 2, "op": "wait", "job": shapedID])?.job?["state"] as? String == "succeeded")
        let record = try #require(server.records(path: "/shape").first)
        #expect(record.method == "POST")
        #expect(record.header("X-Token") == "s3cret")
        #expect(record.body == #"{"q":1}"#)
        // Header values are never shown back; only their names.
        let status = try #require(client.call(["id": 3, "op": "status", "job": shapedID]))
        let text = String(decoding: try JSONSerialization.data(withJSONObject: status), as: UTF8.self)
        #expect(!text.contains("s3cret"))

        let redirected = try #require(client.call(poll(server.url("/old"), every: 50, extra: ["id": 4])))
        let redirectedID = try #require(redirected.job?["id"] as? String)
        #expect(client.call(["id": 5, "op": "wait", "job": redirectedID])?.job?["state"] as? String == "succeeded")
        #expect(server.records(path: "/new").count == 1)
    }

    @Test("a response body over the limit fails the poll")
    func responseBodyLimit() throws {
        let big = #"{"state":"done","pad":""# + String(repeating: "x", count: 4_000) + #""}"#
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: big) }
        defer { server.shutdown() }
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory) { $0.http.maxResponseBytes = 2_048 }
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let registered = try #require(client.call(poll(server.url("/big"), every: 20, extra: ["id": 1, "max_failures": 1])))
        let id = try #require(registered.job?["id"] as? String)
        let ended = try #require(client.call(["id": 2, "op": "wait", "job": id]))
        #expect(ended.job?["state"] as? String == "failed")
        #expect((ended.job?["error"] as? String)?.contains("larger than 2048 bytes") == true)
    }

    @Test("bad URLs and conditions are refused over the socket with stable codes and the column")
    func refusals() throws {
        let directory = TemporaryDirectory()
        let daemon = try startPollDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let ftp = try #require(client.call(poll("ftp://example.com/x", every: 100, extra: ["id": 1])))
        #expect(ftp.errorCode == "bad_url")
        let bad = try #require(client.call(poll("http://127.0.0.1:9/", every: 100, until: "/state = 1", extra: ["id": 2])))
        #expect(bad.errorCode == "bad_condition")
        #expect((bad["error"] as? [String: Any])?["column"] as? Int == 8)
        let list = try #require(client.call(["id": 3, "op": "list"]))
        #expect((list.result?["jobs"] as? [Any])?.isEmpty == true)
    }
}
