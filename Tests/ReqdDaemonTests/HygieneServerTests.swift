import Foundation
import ReqdProtocol
import ReqdTestSupport
import Synchronization
import Testing

/// Waits up to `seconds` for `condition`, checking every 20 ms.
private func eventually(_ seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

/// Paths: `/slow` answers after 2 s, `/hook*` and everything else at once.
private func handler(_ record: TestHTTPServer.Record) -> TestHTTPServer.Reply {
    record.path.hasPrefix("/slow")
        ? TestHTTPServer.Reply(body: "{}", delayNanos: 2_000_000_000) : TestHTTPServer.Reply(status: 201, body: #"{"ok":true}"#)
}

@Suite("Request hygiene against a real HTTP server", .serialized)
struct HygieneServerTests {
    @Test("a latest-wins replace aborts the in-flight request: the server sees the connection closed before it answered")
    func replaceAbortsOnTheWire() throws {
        let fixture = try ServerFixture(handler: handler)
        let old = try fixture.submit("GET", "/slow?q=a", ["key": "search"])
        let oldID = try #require(old.job?["id"] as? String)
        #expect(eventually { fixture.server.records(path: "/slow?q=a").count == 1 })
        let new = try fixture.submit("GET", "/fast?q=ab", ["key": "search"])
        #expect(new.result?["replaced"] as? String == oldID)
        #expect(fixture.firstRequestAborted("/slow?q=a"))
        #expect(fixture.server.records(path: "/slow?q=a").first?.status == nil, "the aborted request was never answered")
        let newID = try #require(new.job?["id"] as? String)
        let ended = try fixture.wait(newID)
        #expect(ended["state"] as? String == "succeeded")
        let oldView = try #require(try fixture.call(["op": "status", "job": oldID]).job)
        #expect(oldView["state"] as? String == "cancelled")
        #expect(oldView["reason"] as? String == "superseded")
    }

    @Test("a job's own User-Agent is sent as it is, and only once")
    func ownUserAgent() throws {
        let fixture = try ServerFixture(handler: handler)
        let reply = try fixture.submit("GET", "/agent", ["headers": ["User-Agent: my-tool/2"]])
        let id = try #require(reply.job?["id"] as? String)
        _ = try fixture.wait(id)
        let record = try #require(fixture.server.records(path: "/agent").first)
        #expect(record.header("user-agent") == "my-tool/2")
        #expect(record.headers.filter { $0.0.lowercased() == "user-agent" }.count == 1)
    }

    @Test("the target of a deduplicated burst sees exactly one request")
    func dedupedBurst() throws {
        let fixture = try ServerFixture(handler: handler)
        var ids: Set<String> = []
        var deduplicated = 0
        for _ in 0..<10 {
            let reply = try fixture.submit("POST", "/orders", ["body": #"{"sku":7}"#, "headers": ["Content-Type: application/json"]])
            ids.insert(try #require(reply.job?["id"] as? String))
            if reply.result?["deduplicated"] as? Bool == true { deduplicated += 1 }
        }
        #expect(ids.count == 1)
        #expect(deduplicated == 9)
        let only = try #require(ids.first)
        _ = try fixture.wait(only)
        usleep(200_000)
        #expect(fixture.server.records(path: "/orders").count == 1)
        #expect(fixture.server.records(path: "/orders").first?.header("idempotency-key") == only, "the job id is the Idempotency-Key")
        #expect(fixture.server.records(path: "/orders").first?.header("user-agent") == "reqd/\(ProtocolInfo.softwareVersion)")
        // With the window turned off, the same request goes out again.
        let again = try fixture.submit("POST", "/orders", ["body": #"{"sku":7}"#, "dedupe_window_ms": 0])
        #expect(again.result?["deduplicated"] == nil)
        let againID = try #require(again.job?["id"] as? String)
        _ = try fixture.wait(againID)
        #expect(fixture.server.records(path: "/orders").count == 2)
    }

    @Test("SIGKILL of a client cancels its connection-bound jobs, which the server stops receiving; its other jobs run on")
    func killedClientCancelsBoundJobs() throws {
        let fixture = try ServerFixture(handler: handler)
        let poll = { (path: String, bind: Bool) -> String in
            let url = fixture.server.url(path)
            return #"{"id":"\#(path)","op":"register-poll","url":"\#(url)","every_ms":30,"until":"status == 999","max_failures":1000000,"bind_connection":\#(bind)}"#
        }
        // A separate process registers two bound poll jobs and one unbound one, says so, and waits to be killed.
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.sendall((sys.argv[2] + "\\n" + sys.argv[3] + "\\n" + sys.argv[4] + "\\n").encode())
            replies = b""
            while replies.count(b"\\n") < 3:
                replies += s.recv(65536)
            sys.stdout.write(replies.decode())
            sys.stdout.flush()
            time.sleep(60)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, fixture.daemon.socketPath, poll("/bound1", true), poll("/bound2", true), poll("/free", false)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        while text.filter({ $0 == "\n" }).count < 3 {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let replies = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let ids = Dictionary(uniqueKeysWithValues: replies.compactMap { reply -> (String, String)? in
            guard let tag = reply["id"] as? String, let id = reply.job?["id"] as? String else { return nil }
            return (tag, id)
        })
        #expect(ids.count == 3, "\(text)")
        #expect(eventually { ["/bound1", "/bound2", "/free"].allSatisfy { fixture.server.records(path: $0).count >= 3 } })

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        for path in ["/bound1", "/bound2"] {
            let id = try #require(ids[path])
            let view = try #require(try fixture.call(["op": "wait", "job": id]).job)
            #expect(view["state"] as? String == "cancelled")
            #expect(view["reason"] as? String == "connection_closed")
        }
        let bound = fixture.server.records(path: "/bound1").count + fixture.server.records(path: "/bound2").count
        let free = fixture.server.records(path: "/free").count
        usleep(400_000)
        #expect(fixture.server.records(path: "/bound1").count + fixture.server.records(path: "/bound2").count == bound)
        #expect(fixture.server.records(path: "/free").count > free + 3, "the unbound job keeps polling")
        let freeID = try #require(ids["/free"])
        let freeView = try #require(try fixture.call(["op": "status", "job": freeID]).job)
        #expect(freeView["state"] as? String == "active")
    }

    @Test("--on-expire fires exactly once at expiry, and never after a cancel")
    func onExpire() throws {
        let fixture = try ServerFixture(handler: handler)
        let fired = try fixture.call([
            "op": "register-countdown", "key": "fires", "duration_ms": 300,
            "on_expire": ["method": "POST", "url": fixture.server.url("/hook"), "body": #"{"done":true}"#],
        ])
        let firedID = try #require(fired.job?["id"] as? String)
        _ = try fixture.call([
            "op": "register-countdown", "key": "cancelled", "duration_ms": 300,
            "on_expire": ["method": "POST", "url": fixture.server.url("/hook-cancelled")],
        ])
        _ = try fixture.call(["op": "cancel", "key": "cancelled"])
        let expired = try #require(try fixture.call(["op": "wait", "job": firedID]).job)
        #expect(expired["state"] as? String == "expired")
        let spawned = try #require((expired["on_expire"] as? [String: Any])?["job"] as? String)
        let request = try #require(try fixture.call(["op": "wait", "job": spawned]).job)
        #expect(request["state"] as? String == "succeeded")
        #expect((request["request"] as? [String: Any])?["parent"] as? String == firedID)
        usleep(500_000)
        let hooks = fixture.server.records(path: "/hook")
        #expect(hooks.count == 1)
        #expect(hooks.first?.method == "POST")
        #expect(hooks.first?.body == #"{"done":true}"#)
        #expect(fixture.server.records(path: "/hook-cancelled").isEmpty)
    }
}
