import Foundation
import ReqdTestSupport
import Synchronization
import Testing

private let until = #"/state == "done""#

/// Runs `body` with the test HTTP server and a `reqd` process that accepts short intervals.
private func withServerAndDaemon(_ body: (TestHTTPServer, DaemonProcess) throws -> Void) throws {
    try withServerAndDaemon(try makeServer(), daemonArguments: ["--set", "poll.min_every=10ms"], body)
}

/// A status endpoint per path: progress climbs by 25 per request to 100 ("done"); `/fail` always
/// answers 500; `/slow` answers after 10 s.
private func makeServer() throws -> TestHTTPServer {
    let counts = Mutex<[String: Int]>([:])
    return try TestHTTPServer { record in
        switch record.path {
        case "/fail":
            return TestHTTPServer.Reply(status: 500, body: "{}")
        case "/slow":
            return TestHTTPServer.Reply(body: "{}", delayNanos: 10_000_000_000)
        default:
            let count = counts.withLock { counts in
                counts[record.path, default: 0] += 1
                return counts[record.path]!
            }
            let progress = min(100, count * 25)
            return TestHTTPServer.Reply(body: #"{"state":"\#(progress == 100 ? "done" : "running")","progress":\#(progress)}"#)
        }
    }
}

@Suite("reqd-client register-poll, end to end", .serialized)
struct PollBinaryTests {
    @Test("--wait exits 0 on success, 2 failed, 3 cancelled, 4 timed out, 11 for a bad URL or condition")
    func waitExitStatuses() throws {
        try withServerAndDaemon { server, daemon in
            let succeeded = try Binaries.client(
                ["register-poll", server.url("/ok"), "--every", "50ms", "--until", until, "--progress", "/progress", "--wait"],
                socket: daemon.socket)
            #expect(succeeded.status == 0, "\(succeeded.stderr)")
            #expect(succeeded.stdout.contains("succeeded (status 200)"), "\(succeeded.stdout)")

            let failed = try Binaries.client(
                ["register-poll", server.url("/fail"), "--every", "20ms", "--until", until, "--max-failures", "2", "--wait"],
                socket: daemon.socket)
            #expect(failed.status == 2)
            #expect(failed.stdout.contains("failed"))
            #expect(failed.stdout.contains("500"))

            let timedOut = try Binaries.client(
                ["register-poll", server.url("/slow"), "--every", "50ms", "--until", until, "--timeout", "400ms", "--wait"],
                socket: daemon.socket)
            #expect(timedOut.status == 4)
            #expect(timedOut.stdout.contains("timed_out"))

            let waiting = Mutex<Binaries.Outcome?>(nil)
            let done = DispatchSemaphore(value: 0)
            let socket = daemon.socket
            let slowURL = server.url("/slow")
            DispatchQueue.global().async {
                let outcome = try? Binaries.client(
                    ["register-poll", slowURL, "--every", "50ms", "--until", until, "--key", "to-cancel", "--wait"], socket: socket)
                waiting.withLock { $0 = outcome }
                done.signal()
            }
            var cancelled = false
            for _ in 0..<100 where !cancelled {
                usleep(50_000)
                cancelled = try Binaries.client(["cancel", "--key", "to-cancel"], socket: daemon.socket).status == 0
            }
            #expect(cancelled)
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(waiting.withLock { $0?.status } == 3)

            let badURL = try Binaries.client(["register-poll", "ftp://example.com/x", "--every", "1s", "--until", until], socket: daemon.socket)
            #expect(badURL.status == 11)
            #expect(badURL.stderr.contains("bad_url") || badURL.stderr.contains("http and https"))
            let badCondition = try Binaries.client(
                ["register-poll", server.url("/ok"), "--every", "1s", "--until", "/state === 1"], socket: daemon.socket)
            #expect(badCondition.status == 11)
            #expect(badCondition.stderr.contains("column"), "\(badCondition.stderr)")
        }
    }

    @Test("--follow prints one line per event off a terminal, and a progress bar on one")
    func follow() throws {
        try withServerAndDaemon { server, daemon in
            let lines = try Binaries.client(
                ["register-poll", server.url("/lines"), "--every", "30ms", "--until", until, "--progress", "/progress", "--follow"],
                socket: daemon.socket)
            #expect(lines.status == 0)
            let output = lines.stdout.split(separator: "\n")
            #expect(output.first?.hasPrefix("registered pl_") == true, "\(lines.stdout)")
            #expect(output.filter { $0.contains(" progress ") }.count == 4, "\(lines.stdout)")
            #expect(output.contains { $0.contains("progress=50%") })
            #expect(output.last?.contains("succeeded after 4 polls") == true)

            let command = "\(Binaries.client) --socket \(daemon.socket) register-poll \(server.url("/bar")) --every 30ms "
                + "--until '/state == \"done\"' --progress /progress --follow"
            let terminal = try Binaries.run("/usr/bin/script", ["-qec", command, "/dev/null"])
            #expect(terminal.status == 0)
            let updates = terminal.stdout.components(separatedBy: "\r\u{1B}[K").filter { !$0.isEmpty }
            #expect(updates.contains { $0.contains("[######------------------] 25%") && $0.contains("1 polls") }, "\(updates)")
            #expect(updates.contains { $0.contains("[########################] 100%") })
            #expect(updates.last?.contains("succeeded") == true)
        }
    }
}
