import Foundation
import ReqdDaemon
import ReqdTestSupport
import Synchronization
import Testing

private let ms: Int64 = 1_000_000

@Suite("Poll jobs against a real HTTP server", .serialized)
struct PollServerTests {
    @Test("remote jobs with random progress and latency: no overlap, no idle gap, progress forward, success")
    func randomRemoteJobs() throws {
        let every = 60
        let simulation = RemoteJobSimulation(seed: 2026, intervalNanos: Int64(every) * ms, maxStep: 15)
        let fixture = try ServerFixture(timeoutSeconds: 30) { simulation.reply(path: $0.path) }
        let server = fixture.server
        let paths = (1...6).map { "/jobs/\($0)" }
        for path in paths {
            _ = try fixture.register(path, every: every, ["progress": "/progress", "follow": true])
        }
        var progress: [String: [Double]] = [:]
        var ended: [String: String] = [:]
        while ended.count < paths.count, let line = fixture.client.next() {
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
                    // (Times are taken at the server, so each start carries some delivery jitter.)
                    let sinceStart = Int64(next.start - previous.start)
                    #expect(sinceStart >= Int64(every - 15) * ms, "\(path): started after \(sinceStart / ms) ms")
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
        let fixture = try ServerFixture { script.reply(path: $0.path) }
        _ = try fixture.register("/p", every: 20, ["progress": "/progress", "follow": true])
        var reported: [Double] = []
        var polled = 0
        while let line = fixture.client.next() {
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
        let fixture = try ServerFixture { script.reply(path: $0.path) }
        let failed = try fixture.wait(try fixture.register("/f", every: 20, ["max_failures": 4]))
        #expect(failed["state"] as? String == "failed")
        let error = try #require(failed["error"] as? String)
        #expect(error.contains("4 polls in a row failed"))
        #expect(error.contains("closed the connection"))
        #expect((failed["poll"] as? [String: Any])?["polls"] as? Int == 4)
        #expect(fixture.server.records(path: "/f").count == 4)

        // Two failures, but never two in a row: one good answer resets the count.
        let done = try fixture.wait(try fixture.register("/reset", every: 20, ["max_failures": 2]))
        #expect(done["state"] as? String == "succeeded")
        #expect((done["result"] as? [String: Any])?["body"] as? String == #"{"state":"done"}"#)
    }

    @Test("the total time limit ends the job timed_out and cancels the request on the wire")
    func timeoutCancelsOnTheWire() throws {
        let fixture = try ServerFixture { _ in TestHTTPServer.Reply(body: #"{"state":"done"}"#, delayNanos: 5_000 * ms) }
        let id = try fixture.register("/slow", every: 50, ["timeout_ms": 300])
        let started = Date()
        #expect(try fixture.wait(id)["state"] as? String == "timed_out")
        #expect(Date().timeIntervalSince(started) < 2)
        // The server sees the client go away long before its 5 s answer.
        #expect(fixture.firstRequestAborted("/slow"))
        #expect(fixture.server.records(path: "/slow").count == 1)
    }

    @Test("cancel aborts the request that is out, on the wire")
    func cancelAbortsOnTheWire() throws {
        let fixture = try ServerFixture { _ in TestHTTPServer.Reply(body: "{}", delayNanos: 5_000 * ms) }
        let id = try fixture.register("/c", every: 50, ["ephemeral": true])
        for _ in 0..<100 where fixture.server.records(path: "/c").isEmpty { usleep(10_000) }
        let cancelled = try #require(fixture.client.call(["id": 2, "op": "cancel", "job": id]))
        #expect(cancelled.result?["cancelled"] as? [String] == [id])
        #expect(fixture.firstRequestAborted("/c"))
    }

    @Test("a poll job resumes after a daemon restart with its id, counters and progress")
    func resumesAfterRestart() throws {
        let simulation = RemoteJobSimulation(seed: 9, intervalNanos: 1 * ms, maxStep: 3)
        let fixture = try ServerFixture { simulation.reply(path: $0.path) }
        let id = try fixture.register("/r", every: 30, ["progress": "/progress", "follow": true])
        var lastProgress = 0.0
        while let event = fixture.client.event("progress"), let value = event["progress"] as? Double {
            lastProgress = value
            if value >= 12 { break }
        }
        var pollsBefore = 0
        try fixture.restart(timeoutSeconds: 20) {
            pollsBefore = fixture.server.records(path: "/r").filter { $0.status != nil }.count
        }

        let status = try #require(fixture.client.call(["id": 2, "op": "status", "job": id]))
        #expect(status.job?["state"] as? String == "active")
        let pollInfo = try #require(status.job?["poll"] as? [String: Any])
        #expect((pollInfo["progress"] as? Double ?? 0) >= lastProgress)
        #expect((pollInfo["polls"] as? Int ?? 0) >= pollsBefore - 1)
        #expect((pollInfo["polls"] as? Int ?? 0) > 0)
        let ended = try fixture.wait(id)
        #expect(ended["state"] as? String == "succeeded")
        #expect(((ended["poll"] as? [String: Any])?["polls"] as? Int ?? 0) >= pollsBefore)
    }

    @Test("method, headers and body reach the server; redirects are followed")
    func requestShapeAndRedirects() throws {
        let fixture = try ServerFixture { record in
            if record.path == "/old" {
                var reply = TestHTTPServer.Reply(status: 302, body: "")
                reply.headers.append(("Location", "/new"))
                return reply
            }
            return TestHTTPServer.Reply(body: #"{"state":"done"}"#)
        }
        let shaped = try fixture.register(
            "/shape", every: 50,
            ["method": "post", "headers": ["X-Token: s3cret", "Accept: application/json"], "body": #"{"q":1}"#])
        #expect(try fixture.wait(shaped)["state"] as? String == "succeeded")
        let record = try #require(fixture.server.records(path: "/shape").first)
        #expect(record.method == "POST")
        #expect(record.header("X-Token") == "s3cret")
        #expect(record.body == #"{"q":1}"#)
        // Header values are never shown back; only their names.
        let status = try #require(fixture.client.call(["id": 3, "op": "status", "job": shaped]))
        let text = String(decoding: try JSONSerialization.data(withJSONObject: status), as: UTF8.self)
        #expect(!text.contains("s3cret"))
        #expect(text.contains("X-Token"))

        #expect(try fixture.wait(try fixture.register("/old", every: 50))["state"] as? String == "succeeded")
        #expect(fixture.server.records(path: "/new").count == 1)
    }

    @Test("a response body over the limit fails the poll")
    func responseBodyLimit() throws {
        let big = #"{"state":"done","pad":""# + String(repeating: "x", count: 4_000) + #""}"#
        let fixture = try ServerFixture(configure: { $0.http.maxResponseBytes = 2_048 }) { _ in TestHTTPServer.Reply(body: big) }
        let ended = try fixture.wait(try fixture.register("/big", every: 20, ["max_failures": 1]))
        #expect(ended["state"] as? String == "failed")
        #expect((ended["error"] as? String)?.contains("larger than 2048 bytes") == true)
    }

    @Test("bad URLs and conditions are refused over the socket with stable codes and the column")
    func refusals() throws {
        let fixture = try ServerFixture { _ in TestHTTPServer.Reply(body: "{}") }
        let client = fixture.client
        let ftp = try #require(client.call(poll("ftp://example.com/x", every: 100, extra: ["id": 1])))
        #expect(ftp.errorCode == "bad_url")
        let bad = try #require(client.call(poll(fixture.server.url("/x"), every: 100, until: "/state = 1", extra: ["id": 2])))
        #expect(bad.errorCode == "bad_condition")
        #expect((bad["error"] as? [String: Any])?["column"] as? Int == 8)
        let list = try #require(client.call(["id": 3, "op": "list"]))
        #expect((list.result?["jobs"] as? [Any])?.isEmpty == true)
    }
}
