import Foundation
import ReqdTestSupport
import Testing

/// `reqd-client top` on a real terminal: tmux runs it in a detached session of a known size, and
/// `capture-pane` reads the screen as a user would see it.
@Suite("reqd-client top under tmux", .serialized)
struct TopBinaryTests {
    /// tmux on a server socket of this test's own, so no user's tmux is touched.
    private struct Tmux {
        let server = "reqd-top-\(getpid())"

        /// Ends the server, and with it the pane's process.
        func stop() { _ = try? run(["kill-server"]) }

        @discardableResult
        func run(_ arguments: [String]) throws -> Binaries.Outcome {
            try Binaries.run("/usr/bin/tmux", ["-L", server, "-f", "/dev/null"] + arguments, timeout: 10)
        }

        /// Starts the tmux server with a session running `command`, through `sh` with every output
        /// sent to /dev/null: the server tmux forks would otherwise keep the test's pipes open, and
        /// a read to their end would never return.
        func start(_ command: String, columns: Int, rows: Int) throws {
            let line = "exec /usr/bin/tmux -L \(server) -f /dev/null new-session -d -s top -x \(columns) -y \(rows) '\(command)' </dev/null >/dev/null 2>&1"
            var pid: pid_t = 0
            let arguments = ["/bin/sh", "-c", line]
            var argv = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            // The test's threads block most signals, and a spawned process keeps that mask: tmux and
            // the pane's process would then never see SIGHUP or SIGTERM, and outlive the test.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            #expect(posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ) == 0, "spawn tmux")
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            #expect(status == 0, "tmux new-session exited with \(status)")
        }

        func screen() throws -> String { try run(["capture-pane", "-p", "-t", "top"]).stdout }

        /// Captures the screen until `accept` holds, for at most 15 s; returns the last capture.
        func screen(until accept: (String) -> Bool, while work: () throws -> Void = {}) throws -> String {
            var last = ""
            for _ in 0..<150 {
                try work()
                last = try screen()
                if accept(last) { return last }
                usleep(100_000)
            }
            return last
        }
    }

    @Test("top shows the jobs, the rates, what is due soonest and the failing target live, and q quits and gives the terminal back")
    func liveView() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            Issue.record("tmux is not installed: install the Debian package tmux (scripts/setup does)")
            return
        }
        let server = try TestHTTPServer { record in
            record.path == "/busy" ? TestHTTPServer.Reply(status: 503, body: "{}") : TestHTTPServer.Reply(body: "{}")
        }
        try withServerAndDaemon(server) { server, daemon in
            #expect(try Binaries.client(["register-countdown", "--key", "tea", "--in", "10m", "--tick", "10m"], socket: daemon.socket).status == 0)
            let busy = try Binaries.client(
                ["submit", server.url("/busy"), "--max-attempts", "50", "--backoff", "30s"], socket: daemon.socket)
            #expect(busy.status == 0, "\(busy.stderr)")
            for _ in 0..<100 where server.records(path: "/busy").isEmpty { usleep(20_000) }

            let tmux = Tmux()
            defer { tmux.stop() }
            let statusFile = NSTemporaryDirectory() + "/reqd-top-status-\(getpid())"
            unlink(statusFile)
            defer { unlink(statusFile) }
            let command = "env -u COLUMNS -u LINES \(Binaries.client) --socket \(daemon.socket) top --interval 200ms; echo $? > \(statusFile)"
            try tmux.start(command, columns: 150, rows: 45)
            try tmux.run(["set-option", "-t", "top", "remain-on-exit", "on"])

            let first = try tmux.screen { $0.contains("failing") && $0.contains("tea") }
            let lines = first.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first?.hasPrefix("reqd ") == true, "\(first)")
            #expect(lines.contains { $0.hasPrefix("countdown") && $0.split(separator: " ").dropFirst().first == "1" }, "one active countdown:\n\(first)")
            #expect(lines.contains { $0.hasPrefix("request") && $0.split(separator: " ").dropFirst().first == "1" }, "one active request job:\n\(first)")
            #expect(lines.contains { $0.contains("tea") && $0.contains("countdown") && $0.contains("expires in") }, "\(first)")
            #expect(lines.contains { $0.contains(server.url("/busy")) && $0.contains("request") }, "the request due next:\n\(first)")
            let origin = "http://127.0.0.1:\(server.port)"
            #expect(lines.contains { $0.hasPrefix(origin) && $0.contains("failing") && $0.contains("status 503") }, "\(first)")
            #expect(lines.last { !$0.isEmpty }?.hasPrefix("q quits") == true, "\(first)")

            // Registrations while it runs show up as a rate.
            var registered = 0
            let busyRates = try tmux.screen(
                until: { screen in
                    screen.split(separator: "\n").contains { line in
                        line.hasPrefix("RATES/s") && !line.contains("registrations 0 ") && !line.contains("registrations - ")
                    }
                },
                while: {
                    registered += 1
                    try Binaries.client(["register-countdown", "--in", "10m"], socket: daemon.socket)
                })
            #expect(busyRates.contains("RATES/s  registrations"), "\(busyRates)")
            #expect(
                busyRates.split(separator: "\n").contains { $0.hasPrefix("RATES/s") && !$0.contains("registrations 0 ") && !$0.contains("registrations - ") },
                "a rate after \(registered) registrations:\n\(busyRates)")

            // One connection serves every refresh: past its 5 s read limit, frames keep coming
            // without a "did not answer" (a limit of the whole connection had run out there).
            // Each frame lasts 200 ms; the screen is read every 50 ms for 6 s.
            var problem: String?
            for _ in 0..<120 where problem == nil {
                let frame = try tmux.screen()
                if frame.contains("did not answer") { problem = frame }
                usleep(50_000)
            }
            #expect(problem == nil, "\(problem ?? "")")

            try tmux.run(["send-keys", "-t", "top", "q"])
            // top's status is written to a file, not read off the screen: tmux may clear a pane's
            // text once it dies, and its pane status was seen to stay unknown.
            var status: String?
            for _ in 0..<150 {
                status = (try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                if status?.isEmpty == false { break }
                usleep(100_000)
            }
            let alternate = try tmux.run(["display-message", "-p", "-t", "top", "#{alternate_on}"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let pane = "\(status ?? "none"):\(alternate)"
            #expect(pane == "0:0", "top ended with status 0 on q and left the alternate screen (status:alternate): \(pane)")
        }
    }

    @Test("top refuses to run without a terminal, and --once prints one plain frame")
    func withoutTerminal() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}") }
        try withServerAndDaemon(server) { _, daemon in
            let refused = try Binaries.client(["top"], socket: daemon.socket)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("top needs a terminal"))
            let once = try Binaries.client(["top", "--once"], socket: daemon.socket)
            #expect(once.status == 0, "\(once.stderr)")
            #expect(once.stdout.hasPrefix("reqd "))
            #expect(once.stdout.contains("DUE SOONEST  nothing waits"))
            #expect(!once.stdout.contains("\u{1B}"), "no escape sequences in plain output")
            let metrics = try Binaries.client(["metrics"], socket: daemon.socket)
            #expect(metrics.status == 0)
            #expect(metrics.stdout.contains("# TYPE reqd_jobs gauge"))
            let checked = try Promtool.check(metrics.stdout)
            #expect(checked.status == 0, "\(checked.output)")
        }
    }
}
