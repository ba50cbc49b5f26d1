import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// The most requests whose path starts with `prefix` that were in flight at once at the server.
private func maxInFlight(_ records: [TestHTTPServer.Record], prefix: String) -> Int {
    var edges: [(UInt64, Int)] = []
    for record in records where record.path.hasPrefix(prefix) {
        edges.append((record.start, 1))
        edges.append((record.end ?? UInt64.max, -1))
    }
    // At equal times, an end comes before a start: back to back is not overlap.
    edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    var current = 0
    var most = 0
    for (_, delta) in edges {
        current += delta
        most = max(most, current)
    }
    return most
}

private func members(_ prefix: String, _ count: Int) -> [[String: Any]] {
    (0..<count).map { ["method": "GET", "url": "\(prefix)/\($0)"] }
}

/// Paths: `/slow*` answer after 100 ms, `/hang*` after 30 s, `/fail*` 500, `/restart/2` after 3 s,
/// everything else at once with a body unique to the request.
private func handler(counter: Serial) -> TestHTTPServer.Handler {
    { record in
        let path = record.path
        if path.hasPrefix("/slow") { return TestHTTPServer.Reply(body: "{}", delayNanos: 100_000_000) }
        if path.hasPrefix("/hang") { return TestHTTPServer.Reply(body: "{}", delayNanos: 30_000_000_000) }
        if path.hasPrefix("/fail") { return TestHTTPServer.Reply(status: 500, body: "broken") }
        if path == "/restart/2" { return TestHTTPServer.Reply(body: "{}", delayNanos: 3_000_000_000) }
        let serial = counter.next()
        return TestHTTPServer.Reply(body: "reply-\(serial)", delayNanos: 20_000_000)
    }
}

/// Numbers answers 1, 2, 3 … across the server's threads.
private final class Serial: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

@Suite("Group jobs against a real HTTP server", .serialized)
struct GroupServerTests {
    private func fixture() throws -> ServerFixture {
        try ServerFixture(timeoutSeconds: 20, handler: handler(counter: Serial()))
    }

    private func group(_ fixture: ServerFixture, _ fields: [String: Any]) throws -> String {
        var request = fields
        request["op"] = "register-group"
        let reply = try fixture.call(request)
        return try #require(reply.job?["id"] as? String, "refused: \(reply)")
    }

    @Test("the server never sees more members of a group in flight than its cap, and sees exactly the cap")
    func cap() throws {
        let fixture = try fixture()
        let id = try group(fixture, ["members": members(fixture.server.url("/slow"), 12), "concurrency": 3])
        let ended = try fixture.wait(id)
        #expect(ended["state"] as? String == "succeeded")
        #expect(fixture.server.records.count == 12)
        #expect(maxInFlight(fixture.server.records, prefix: "/slow") == 3)
    }

    @Test("every error is reported: 3 failing members of 10 give 3 entries")
    func allErrors() throws {
        let fixture = try fixture()
        var list = members(fixture.server.url("/ok"), 10)
        for index in [1, 4, 8] { list[index]["url"] = fixture.server.url("/fail/\(index)") }
        let id = try group(fixture, ["members": list, "concurrency": 4])
        let ended = try fixture.wait(id)
        #expect(ended["state"] as? String == "failed")
        let group = try #require(ended["group"] as? [String: Any])
        let errors = try #require(group["errors"] as? [[String: Any]])
        #expect(errors.map { $0["index"] as? Int } == [1, 4, 8])
        #expect(errors.allSatisfy { $0["error"] as? String == "the server answered 500" })
        #expect((group["members"] as? [[String: Any]])?.count == 10)
    }

    @Test("a member that never answers does not hang the group beyond its timeout")
    func neverAnswers() throws {
        let fixture = try fixture()
        let started = Date()
        let id = try group(
            fixture,
            ["members": members(fixture.server.url("/ok"), 2) + members(fixture.server.url("/hang"), 1), "concurrency": 3, "timeout_ms": 500])
        let ended = try fixture.wait(id)
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(ended["state"] as? String == "failed")
        let states = ((ended["group"] as? [String: Any])?["members"] as? [[String: Any]])?.map { $0["state"] as? String }
        #expect(states == ["succeeded", "succeeded", "timed_out"])
        #expect(fixture.firstRequestAborted("/hang/0"))
    }

    @Test("cancelling mid-flight aborts the members on the wire, and no completion request ever arrives")
    func cancelMidFlight() throws {
        let fixture = try fixture()
        let id = try group(
            fixture,
            [
                "members": members(fixture.server.url("/hang"), 6), "concurrency": 3,
                "on_complete": ["url": fixture.server.url("/done")],
            ])
        #expect(fixture.server.eventually { fixture.server.records.count == 3 })
        let cancelled = try fixture.call(["op": "cancel", "job": id])
        #expect(cancelled.result?["count"] as? Int == 1)
        for index in 0..<3 { #expect(fixture.firstRequestAborted("/hang/\(index)")) }
        usleep(500_000)
        #expect(fixture.server.records.count == 3, "no pending member started")
        #expect(fixture.server.records(path: "/done").isEmpty)
        let view = try #require(try fixture.call(["op": "status", "job": id]).job)
        #expect(view["state"] as? String == "cancelled")
    }

    @Test("two concurrent groups with identical members are isolated: every answer lands in exactly one member")
    func isolation() throws {
        let fixture = try fixture()
        let list = members(fixture.server.url("/same"), 8)
        let first = try group(fixture, ["members": list, "concurrency": 4])
        let second = try group(fixture, ["members": list, "concurrency": 4])
        var bodies: [String] = []
        for id in [first, second] {
            let ended = try fixture.wait(id)
            #expect(ended["state"] as? String == "succeeded")
            let results = try #require((ended["group"] as? [String: Any])?["members"] as? [[String: Any]])
            #expect(results.count == 8)
            bodies += results.compactMap { $0["body"] as? String }
        }
        #expect(bodies.count == 16)
        #expect(Set(bodies) == Set((1...16).map { "reply-\($0)" }))
    }

    @Test("a group survives a restart without resending finished members")
    func restart() throws {
        let fixture = try fixture()
        let list = (0..<4).map { ["method": "GET", "url": fixture.server.url("/restart/\($0)")] }
        let id = try group(fixture, ["members": list, "concurrency": 1])
        #expect(fixture.server.eventually { fixture.server.records(path: "/restart/2").count == 1 })
        try fixture.restart()
        let ended = try fixture.wait(id)
        #expect(ended["state"] as? String == "succeeded")
        #expect(fixture.server.records(path: "/restart/0").count == 1)
        #expect(fixture.server.records(path: "/restart/1").count == 1)
        #expect(fixture.server.records(path: "/restart/2").count == 2, "the member in flight at the restart runs again")
        #expect(fixture.server.records(path: "/restart/3").count == 1)
    }
}

extension TestHTTPServer {
    /// Waits up to 5 s for `condition`, checking every 10 ms.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
