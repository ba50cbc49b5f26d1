import Foundation
import ReqdTestSupport
import Testing

@Suite("Per-user limits, with a client running as uid 65534", .serialized)
struct QuotaBinaryTests {
    @Test("uid 65534 fills its active-jobs, in-flight and connection quotas and is told so; root still registers, connects and gets its requests sent")
    func quotasPerUser() throws {
        guard getuid() == 0 else {
            Issue.record("this test needs root to run a client as a second uid")
            return
        }
        let server = try TestHTTPServer { record in
            record.path == "/slow" ? TestHTTPServer.Reply(body: "{}", delayNanos: 2_000_000_000) : TestHTTPServer.Reply(body: "{}")
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(
            directory: directory,
            extraArguments: [
                "--set", "socket.group=nogroup", "--set", "limits.active_jobs_per_user=4",
                "--set", "limits.connections_per_user=3", "--set", "limits.requests_in_flight_per_user=2",
            ])
        defer { daemon.stop() }
        func asNobody(_ executable: String, _ arguments: [String]) throws -> Binaries.Outcome {
            try Binaries.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments)
        }
        func client(_ arguments: [String]) throws -> Binaries.Outcome {
            try asNobody(Binaries.client, ["--socket", daemon.socket] + arguments)
        }

        for _ in 0..<3 {
            let submitted = try client(["--json", "submit", "POST", server.url("/slow"), "--max-attempts", "1", "--dedupe-window", "0"])
            #expect(submitted.status == 0, "\(submitted.stderr)")
        }
        #expect(try client(["register-countdown", "--key", "a", "--seconds", "600"]).status == 0)
        let refused = try client(["register-countdown", "--key", "b", "--seconds", "600"])
        #expect(refused.status == 12)
        #expect(refused.stderr.contains("quota_exceeded"), "\(refused.stderr)")
        #expect(refused.stderr.contains("limits.active_jobs_per_user is 4"), "\(refused.stderr)")

        // Two of the three requests are on the wire; the third waits, with no attempt spent.
        usleep(500_000)
        #expect(server.records(path: "/slow").count == 2)
        let limits = try #require(try client(["--json", "status"]).json?["limits"] as? [String: Any])
        #expect((limits["active_jobs"] as? [String: Any])?["used"] as? Int == 4)
        #expect((limits["requests_in_flight"] as? [String: Any])?["used"] as? Int == 2)
        #expect(limits["requests_waiting"] as? Int == 1)
        #expect(try client(["status"]).stdout.contains("requests in flight 2/2 (1 waiting)"))

        // Root is another user: it registers, and its request goes at once.
        #expect(try Binaries.client(["register-countdown", "--key", "root", "--seconds", "600"], socket: daemon.socket).status == 0)
        #expect(try Binaries.client(["submit", "POST", server.url("/fast")], socket: daemon.socket).status == 0)
        var fast = 0
        for _ in 0..<100 where fast == 0 {
            usleep(10_000)
            fast = server.records(path: "/fast").count
        }
        #expect(fast == 1, "root's request is not held behind uid 65534's")

        // Three connections held open; the fourth gets one quota_exceeded line and is closed.
        let script = """
            import socket, sys
            held = []
            for _ in range(3):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)
            for s in held:
                s.sendall(b'{"id":1,"op":"hello"}\\n'); s.makefile("rb").readline()
            s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
            print(s.makefile("rb").readline().decode().strip())
            print("closed" if s.recv(1) == b"" else "open")
            """
        let fourth = try asNobody("/usr/bin/python3", ["-c", script, daemon.socket])
        #expect(fourth.stdout.contains(#""code":"quota_exceeded""#), "\(fourth.stdout) \(fourth.stderr)")
        #expect(fourth.stdout.contains("limits.connections_per_user is 3"))
        #expect(fourth.stdout.hasSuffix("closed\n"))
        #expect(try Binaries.client(["status"], socket: daemon.socket).status == 0)
        // Once those connections are gone, uid 65534 connects again.
        #expect(try client(["status"]).status == 0)

        // The waiting request goes once a slot frees.
        var slow = 0
        for _ in 0..<500 where slow < 3 {
            usleep(10_000)
            slow = server.records(path: "/slow").count
        }
        #expect(slow == 3)
    }
}
