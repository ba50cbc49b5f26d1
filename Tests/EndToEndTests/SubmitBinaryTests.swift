import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// The test server: `/search` answers after 300 ms, `/missing` 404, `/broken` 500, anything else 201 at once.
private func makeServer() throws -> TestHTTPServer {
    try TestHTTPServer { record in
        switch record.path.split(separator: "?").first ?? "" {
        case "/search": TestHTTPServer.Reply(body: #"{"hits":[]}"#, delayNanos: 300_000_000)
        case "/missing": TestHTTPServer.Reply(status: 404, body: "no such thing")
        case "/broken": TestHTTPServer.Reply(status: 500, body: "oops")
        default:
            {
                var reply = TestHTTPServer.Reply(status: 201, body: #"{"id":9}"#)
                reply.headers.append(("Location", "/orders/9"))
                return reply
            }()
        }
    }
}

private func withServerAndDaemon(_ body: (TestHTTPServer, DaemonProcess) throws -> Void) throws {
    try withServerAndDaemon(try makeServer(), daemonArguments: ["--set", "request.backoff_min=20ms"], body)
}

@Suite("reqd-client submit, end to end", .serialized)
struct SubmitBinaryTests {
    @Test("a search box: 20 submits --replace 50 ms apart against a 300 ms server; only the last completes, every earlier one on the wire was aborted")
    func searchBox() throws {
        try withServerAndDaemon { server, daemon in
            // Keystrokes every 50 ms, each its own reqd-client process. The processes start first and
            // wait on a FIFO for their body (`--data @FIFO`); each keystroke then writes one FIFO, so
            // process start-up does not stretch the 50 ms gaps.
            let outcomes = Mutex<[Int: Binaries.Outcome]>([:])
            let group = DispatchGroup()
            let socket = daemon.socket
            let fifos = (0..<20).map { "\(daemon.directory)/keystroke-\($0)" }
            for (index, fifo) in fifos.enumerated() {
                #expect(mkfifo(fifo, 0o600) == 0)
                let url = server.url("/search?q=\(index)")
                group.enter()
                // A thread each: blocked work on Dispatch's global queue gets new threads only slowly.
                Thread {
                    defer { group.leave() }
                    if let outcome = try? Binaries.client(
                        ["--json", "submit", "POST", url, "--data", "@" + fifo, "--replace", "search"], socket: socket)
                    {
                        outcomes.withLock { $0[index] = outcome }
                    }
                }.start()
            }
            usleep(500_000)
            let start = DispatchTime.now()
            for (index, fifo) in fifos.enumerated() {
                let due = start.uptimeNanoseconds + UInt64(index) * 50_000_000
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32((due - now) / 1_000)) }
                let descriptor = open(fifo, O_WRONLY)
                _ = write(descriptor, "q=\(index)", 4)
                close(descriptor)
            }
            #expect(group.wait(timeout: .now() + 60) == .success)
            var views: [[String: Any]] = []
            for index in 0..<20 {
                let outcome = try #require(outcomes.withLock { $0[index] })
                #expect(outcome.status == 0, "\(outcome.stderr)")
                let id = try #require((outcome.json?["job"] as? [String: Any])?["id"] as? String)
                let waited = try Binaries.client(["--json", "wait", id, "--timeout", "10s"], socket: daemon.socket)
                views.append(try #require(waited.json?["job"] as? [String: Any]))
            }
            // The daemon's order is what counts: the last job registered wins.
            views.sort { ($0["created_at"] as? String ?? "") < ($1["created_at"] as? String ?? "") }
            let last = try #require(views.last)
            #expect(last["state"] as? String == "succeeded")
            for view in views.dropLast() {
                #expect(view["state"] as? String == "cancelled", "\(view)")
                #expect(view["reason"] as? String == "superseded")
            }
            let lastURL = try #require((last["request"] as? [String: Any])?["url"] as? String)
            let lastPath = String(lastURL.dropFirst(server.url("").count))
            usleep(200_000)
            let earlier = server.records.filter { $0.path != lastPath }
            #expect(earlier.count >= 10, "most earlier requests reached the server before they were replaced")
            #expect(earlier.allSatisfy { $0.abortedByClient && $0.status == nil }, "every earlier request on the wire was aborted")
            let final = server.records(path: lastPath)
            #expect(final.count == 1)
            #expect(final.first?.status == 200)
            #expect(final.first?.abortedByClient == false)
        }
    }

    @Test("--wait prints the answer; exit 0 succeeded, 2 failed (a 404 at once), 5 dead (500 after its attempts), 11 bad input")
    func waitExitStatuses() throws {
        try withServerAndDaemon { server, daemon in
            let created = try Binaries.client(
                ["submit", "POST", server.url("/orders"), "--data", #"{"sku":7}"#, "--header", "Content-Type: application/json", "--wait"],
                socket: daemon.socket)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("succeeded (status 201)"), "\(created.stdout)")
            #expect(created.stdout.contains("Location: /orders/9"))
            #expect(created.stdout.contains(#"{"id":9}"#))
            #expect(server.records(path: "/orders").first?.body == #"{"sku":7}"#)
            #expect(server.records(path: "/orders").first?.header("content-type") == "application/json")

            let missing = try Binaries.client(["submit", "GET", server.url("/missing"), "--wait"], socket: daemon.socket)
            #expect(missing.status == 2)
            #expect(missing.stdout.contains("the server answered 404"), "\(missing.stdout)")
            #expect(server.records(path: "/missing").count == 1)

            let broken = try Binaries.client(
                ["submit", "GET", server.url("/broken"), "--max-attempts", "3", "--backoff", "20ms..40ms", "--wait"],
                socket: daemon.socket)
            #expect(broken.status == 5, "dead-lettered")
            #expect(broken.stdout.contains("3 attempts failed"), "\(broken.stdout)")
            #expect(server.records(path: "/broken").count == 3)
            let dead = try Binaries.client(["--json", "list", "--state", "dead"], socket: daemon.socket)
            let deadJobs = (dead.json?["jobs"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(deadJobs.count == 1, "\(dead.stdout)")
            let retried = try Binaries.client(["retry", deadJobs.first ?? "-"], socket: daemon.socket)
            #expect(retried.status == 0, "\(retried.stderr)")
            let again = try Binaries.client(["wait", deadJobs.first ?? "-"], socket: daemon.socket)
            #expect(again.status == 5)
            #expect(server.records(path: "/broken").count == 6, "fresh attempts after retry")
            #expect(Set(server.records(path: "/broken").compactMap { $0.header("idempotency-key") }) == [deadJobs.first ?? "-"])

            let badURL = try Binaries.client(["submit", "GET", "ftp://example.org/x", "--wait"], socket: daemon.socket)
            #expect(badURL.status == 11)
            #expect(badURL.stderr.contains("bad_url") || badURL.stderr.contains("not a usable URL"), "\(badURL.stderr)")

            let usage = try Binaries.client(["submit", "GET", server.url("/x"), "--backoff", "soon"], socket: daemon.socket)
            #expect(usage.status == 64)
        }
    }

    @Test("a config file's http.deny: a literal denied address exits 11 with denied_target; a name denied at its attempt ends failed, exit 2")
    func targetPolicy() throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/reqd.toml"
        try "[http]\ndeny = [\n  \"127.0.0.0/8\",\n  \"::1/128\",\n]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", config])
        defer { daemon.stop() }
        let literal = try Binaries.client(["submit", "GET", server.url("/orders"), "--wait"], socket: daemon.socket)
        #expect(literal.status == 11, "\(literal.stderr)")
        #expect(literal.stderr.contains("denied_target"), "\(literal.stderr)")
        #expect(literal.stderr.contains("127.0.0.1 is in 127.0.0.0/8"), "\(literal.stderr)")
        let named = try Binaries.client(["submit", "GET", "http://localhost:\(server.port)/orders", "--wait"], socket: daemon.socket)
        #expect(named.status == 2, "\(named.stdout) \(named.stderr)")
        #expect((named.stdout + named.stderr).contains("denied_target: "), "\(named.stdout) \(named.stderr)")
        #expect(server.connectionCount == 0)
    }

    @Test("reqd-client --bind-connection: killing the client with SIGKILL cancels the job, and the server stops receiving")
    func killedClient() throws {
        try withServerAndDaemon { server, daemon in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binaries.client)
            process.arguments = [
                "--socket", daemon.socket, "register-poll", server.url("/bound"), "--every", "100ms", "--until", "status == 999",
                "--max-failures", "1000", "--bind-connection", "--follow",
            ]
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            var polled = false
            for _ in 0..<150 where !polled {
                usleep(20_000)
                polled = server.records(path: "/bound").count >= 2
            }
            #expect(polled)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let list = try Binaries.client(["--json", "list", "--kind", "poll"], socket: daemon.socket)
            var state: String?
            for _ in 0..<100 {
                let jobs = try Binaries.client(["--json", "list", "--kind", "poll"], socket: daemon.socket).json?["jobs"] as? [[String: Any]]
                state = jobs?.first?["state"] as? String
                if state == "cancelled" { break }
                usleep(20_000)
            }
            #expect(state == "cancelled", "\(list.stdout)")
            let after = server.records(path: "/bound").count
            usleep(400_000)
            #expect(server.records(path: "/bound").count == after)
        }
    }
}
