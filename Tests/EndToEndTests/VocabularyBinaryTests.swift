import Foundation
import ReqdTestSupport
import Testing

/// The client's one vocabulary (issue 18 point 5), run as a user runs it: the built binaries, a real
/// daemon and the test HTTP server.
@Suite("reqd-client vocabulary, end to end", .serialized)
struct VocabularyBinaryTests {
    private func withServerAndDaemon(_ body: (TestHTTPServer, DaemonProcess) throws -> Void) throws {
        let server = try TestHTTPServer { record in
            record.path == "/broken" ? TestHTTPServer.Reply(status: 500, body: "oops") : TestHTTPServer.Reply(status: 200, body: "{}")
        }
        try EndToEndTests.withServerAndDaemon(server, daemonArguments: ["--set", "request.backoff_min=20ms"], body)
    }

    /// Waits up to 10 s for `count` requests to reach `path`.
    private func records(_ server: TestHTTPServer, path: String, count: Int) -> [TestHTTPServer.Record] {
        for _ in 0..<1000 where server.records(path: path).count < count { usleep(10_000) }
        return server.records(path: path)
    }

    @Test("[METHOD] URL is one form everywhere: two words, one word, or the URL alone (GET, or POST with a body)")
    func methodAndURL() throws {
        try withServerAndDaemon { server, daemon in
            let cases: [(arguments: [String], path: String, method: String, body: String)] = [
                (["submit", server.url("/plain")], "/plain", "GET", ""),
                (["submit", server.url("/data"), "-d", "x=1"], "/data", "POST", "x=1"),
                (["submit", "-X", "PUT", server.url("/x"), "-H", "X-Test: 1"], "/x", "PUT", ""),
                (["submit", "DELETE \(server.url("/quoted"))"], "/quoted", "DELETE", ""),
                (["submit", "PATCH", server.url("/words"), "-d", "@-"], "/words", "PATCH", "from stdin"),
            ]
            for (arguments, path, method, body) in cases {
                let outcome = try Binaries.client(arguments + ["--wait"], socket: daemon.socket, input: "from stdin")
                #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
                let record = try #require(records(server, path: path, count: 1).first, "\(arguments)")
                #expect(record.method == method, "\(arguments)")
                #expect(record.body == body, "\(arguments)")
            }
            #expect(records(server, path: "/x", count: 1).first?.header("X-Test") == "1")

            let reported = try Binaries.client(
                ["submit", server.url("/ok"), "--on-success", server.url("/report"), "--on-failure", "PUT", server.url("/never"), "--wait"],
                socket: daemon.socket)
            #expect(reported.status == 0, "\(reported.stderr)")
            #expect(records(server, path: "/report", count: 1).first?.method == "POST")

            let expiring = try Binaries.client(
                ["register-countdown", "--key", "hook", "--in", "200ms", "--on-expire", server.url("/expired"), "--wait"],
                socket: daemon.socket)
            #expect(expiring.status == 0, "\(expiring.stderr)")
            #expect(records(server, path: "/expired", count: 1).first?.method == "GET")

            let group = try Binaries.client(
                [
                    "group", "--time-limit", "20s", "--request", server.url("/g0"), "--request", "POST", server.url("/g1"), "-d", "one",
                    "-H", "X-Member: 1", "--request", "PUT \(server.url("/g2"))", "--on-complete", server.url("/done"), "--wait",
                ], socket: daemon.socket)
            #expect(group.status == 0, "\(group.stdout)\(group.stderr)")
            #expect(records(server, path: "/g0", count: 1).first?.method == "GET")
            let member = try #require(records(server, path: "/g1", count: 1).first)
            #expect(member.method == "POST" && member.body == "one" && member.header("X-Member") == "1")
            #expect(records(server, path: "/g2", count: 1).first?.method == "PUT")
            #expect(records(server, path: "/done", count: 1).first?.method == "POST")

            let unpaired = try Binaries.client(["group", "--request", "GET", "POST", server.url("/a")], socket: daemon.socket)
            #expect(unpaired.status == 64)
            #expect(unpaired.stderr.contains("[METHOD] URL"))
            let twice = try Binaries.client(["submit", "-X", "PUT", "POST", server.url("/a")], socket: daemon.socket)
            #expect(twice.status == 64)
            let sameMethod = try Binaries.client(["submit", "-X", "put", "PUT", server.url("/same"), "--wait"], socket: daemon.socket)
            #expect(sameMethod.status == 0, "one method, in two cases: \(sameMethod.stderr)")
            let twoBodies = try Binaries.client(["group", "--request", server.url("/a"), "-d", "x", "-d", "y"], socket: daemon.socket)
            #expect(twoBodies.status == 64 && twoBodies.stderr.contains("at most one -d"))
            let twoStdins = try Binaries.client(
                ["group", "--request", server.url("/a"), "-d", "@-", "--request", server.url("/b"), "-d", "@-"], socket: daemon.socket)
            #expect(twoStdins.status == 64 && twoStdins.stderr.contains("standard input"))
        }
    }

    @Test("-d @FILE sends any bytes as they are: a file that is not UTF-8 goes as body_base64")
    func binaryBodies() throws {
        try withServerAndDaemon { server, daemon in
            let bytes = (0...255).map(UInt8.init) + [0xC3, 0x28]
            let file = daemon.directory + "/blob.bin"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
            let sent = try Binaries.client(["submit", "PUT", server.url("/blob"), "-d", "@" + file, "--wait"], socket: daemon.socket)
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(records(server, path: "/blob", count: 1).first?.bytes == bytes)
            let group = try Binaries.client(
                ["group", "--request", "POST", server.url("/member"), "-d", "@" + file, "--wait"], socket: daemon.socket)
            #expect(group.status == 0, "\(group.stderr)")
            #expect(records(server, path: "/member", count: 1).first?.bytes == bytes)
        }
    }

    @Test("-q prints the job id alone; --wait works on countdowns; list -q and cancel -q print ids")
    func quietAndWait() throws {
        try withServerAndDaemon { _, daemon in
            let waited = try Binaries.client(["register-countdown", "--in", "300ms", "--wait", "-q"], socket: daemon.socket)
            #expect(waited.status == 0, "\(waited.stderr)")
            #expect(waited.stdout.hasPrefix("cd_") && waited.stdout.split(separator: "\n").count == 1, "\(waited.stdout)")

            var ids: [String] = []
            for key in ["a", "b"] {
                let outcome = try Binaries.client(
                    ["register-countdown", "--key", key, "--in", "10m", "--scope", "quiet", "-q"], socket: daemon.socket)
                #expect(outcome.status == 0)
                ids.append(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let listed = try Binaries.client(["list", "--scope", "quiet", "-q"], socket: daemon.socket)
            #expect(listed.stdout.split(separator: "\n").map(String.init) == ids)
            let cancelled = try Binaries.client(["cancel", "--scope", "quiet", "-q"], socket: daemon.socket)
            #expect(Set(cancelled.stdout.split(separator: "\n").map(String.init)) == Set(ids))

            let both = try Binaries.client(["register-countdown", "--key", "c", "--in", "1s", "--follow", "-q"], socket: daemon.socket)
            #expect(both.status == 64)
        }
    }

    @Test("--in and --at replace --seconds and --until, which still work but are hidden from --help")
    func countdownTimes() throws {
        try withServerAndDaemon { _, daemon in
            let help = try Binaries.run(Binaries.client, ["register-countdown", "--help"])
            #expect(help.stdout.contains("--in ") && help.stdout.contains("--at "), "\(help.stdout)")
            #expect(!help.stdout.contains("--seconds") && !help.stdout.contains("--until"))
            let pollHelp = try Binaries.run(Binaries.client, ["register-poll", "--help"])
            #expect(pollHelp.stdout.contains("--time-limit") && !pollHelp.stdout.contains("--timeout"))

            let soon = Date().addingTimeInterval(600)
            let formatter = ISO8601DateFormatter()
            for arguments in [["--in", "1h30m"], ["--seconds", "5400"], ["--at", formatter.string(from: soon)], ["--until", formatter.string(from: soon)]] {
                let outcome = try Binaries.client(["--json", "register-countdown", "--key", "t"] + arguments, socket: daemon.socket)
                #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
                let remaining = try #require((outcome.json?["job"] as? [String: Any])?["remaining_ms"] as? Int)
                let expected = arguments[0].hasPrefix("--in") || arguments[0] == "--seconds" ? 5_400_000 : 600_000
                #expect(abs(remaining - expected) < 5_000, "\(arguments): \(remaining)")
            }
            #expect(try Binaries.client(["register-countdown", "--key", "t", "--in", "soon"], socket: daemon.socket).status == 64)
            #expect(try Binaries.client(["register-countdown", "--key", "t", "--in", "1m", "--at", "10:00"], socket: daemon.socket).status == 64)
        }
    }

    @Test("retry --all --state dead puts back every dead request job, and only those")
    func retryAll() throws {
        try withServerAndDaemon { server, daemon in
            var dead: [String] = []
            for _ in 0..<3 {
                let outcome = try Binaries.client(
                    ["submit", "POST", server.url("/broken"), "--max-attempts", "1", "--dedupe-window", "0", "--wait", "-q"],
                    socket: daemon.socket)
                #expect(outcome.status == 5, "\(outcome.stderr)")
                dead.append(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let alive = try Binaries.client(["submit", server.url("/ok"), "--wait"], socket: daemon.socket)
            #expect(alive.status == 0)
            let retried = try Binaries.client(["retry", "--all", "--state", "dead"], socket: daemon.socket)
            #expect(retried.status == 0, "\(retried.stderr)")
            #expect(retried.stdout.contains("retried 3 jobs"), "\(retried.stdout)")
            for id in dead { #expect(retried.stdout.contains(id)) }
            #expect(records(server, path: "/broken", count: 6).count == 6, "each dead job made one more attempt")
            #expect(try Binaries.client(["retry", "--all", "--state", "active"], socket: daemon.socket).status == 64)
            #expect(try Binaries.client(["retry"], socket: daemon.socket).status == 64)
        }
    }

    @Test("delete drops an ended or dead job for good, across a restart; an active one is refused")
    func delete() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 500, body: "oops") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        let dead = try Binaries.client(["submit", "POST", server.url("/broken"), "--max-attempts", "1", "--wait", "-q"], socket: daemon.socket)
        #expect(dead.status == 5)
        let id = dead.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let active = try Binaries.client(["register-countdown", "--key", "k", "--in", "10m", "-q"], socket: daemon.socket)
        let activeID = active.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let deleted = try Binaries.client(["delete", id], socket: daemon.socket)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "deleted \(id)  (dead)\n")
        #expect(try Binaries.client(["status", id], socket: daemon.socket).status == 10)
        let refused = try Binaries.client(["delete", activeID], socket: daemon.socket)
        #expect(refused.status == 11)
        #expect(refused.stderr.contains("cancel it first"))
        // Several ids: the refused ones are named, the others still go, and the first refusal sets the status.
        let more = try (0..<2).map { n in
            try Binaries.client(["submit", "POST", server.url("/broken?n=\(n)"), "--max-attempts", "1", "--wait", "-q"], socket: daemon.socket)
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let several = try Binaries.client(["delete", more[0], "rq_aaaaaaaaaa", activeID, more[1]], socket: daemon.socket)
        #expect(several.status == 10, "unknown_job came first: \(several.stderr)")
        #expect(several.stdout == "deleted \(more[0])  (dead)\ndeleted \(more[1])  (dead)\n")
        #expect(several.stderr.contains("rq_aaaaaaaaaa") && several.stderr.contains("cancel it first"), "\(several.stderr)")
        #expect(try Binaries.client(["status", more[1]], socket: daemon.socket).status == 10, "the id after the refusals was deleted")
        daemon.stop()
        let again = try DaemonProcess(directory: directory)
        defer { again.stop() }
        #expect(try Binaries.client(["status", id], socket: again.socket).status == 10, "the store let it go too")
        #expect(try Binaries.client(["status", activeID], socket: again.socket).status == 0)
    }

    @Test("the live line is cut to the terminal's width and never wraps; the line that ends it is whole")
    func liveLineFitsTheTerminal() throws {
        try withServerAndDaemon { _, daemon in
            let command = "\(Binaries.client) --socket \(daemon.socket) register-countdown --key a-rather-long-countdown-key --in 2s --follow"
            let outcome = try Binaries.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["COLUMNS": "20"])
            #expect(outcome.status == 0)
            let updates = outcome.stdout.components(separatedBy: "\r\u{1B}[K").filter { !$0.isEmpty }
            #expect(updates.count >= 2, "\(outcome.stdout.debugDescription)")
            for update in updates.dropLast() {
                #expect(update.count <= 19 && !update.contains("\n"), "\(update.debugDescription)")
            }
            #expect(updates.first == "a-rather-long-count")
            let last = updates.last?.trimmingCharacters(in: .newlines)
            #expect(last?.hasPrefix("a-rather-long-countdown-key  expired") == true, "the end is shown whole: \(last ?? "")")
        }
    }

    @Test("an error during a live --follow line starts on a line of its own")
    func errorAfterLiveLine() throws {
        try withServerAndDaemon { _, daemon in
            let (pid, socket) = (daemon.process.processIdentifier, daemon.socket)
            // Killed once the countdown is registered: the client then draws its live line at once.
            Thread {
                let deadline = Date().addingTimeInterval(10)
                while Date() < deadline, (try? Binaries.client(["list", "--key", "k", "-q"], socket: socket))?.stdout.isEmpty ?? true {
                    usleep(50_000)
                }
                usleep(500_000)
                kill(pid, SIGKILL)
            }.start()
            let command = "\(Binaries.client) --socket \(daemon.socket) register-countdown --key k --in 60s --follow"
            let outcome = try Binaries.run("/usr/bin/script", ["-qec", command, "/dev/null"], timeout: 20)
            // Through the terminal, standard output and standard error arrive as one stream.
            let parts = outcome.stdout.components(separatedBy: "reqd-client: ")
            #expect(outcome.stdout.contains("\r\u{1B}[Kk"), "a live line was drawn: \(outcome.stdout.debugDescription)")
            #expect(parts.count == 2, "one error: \(outcome.stdout.debugDescription)")
            #expect(parts.first?.unicodeScalars.last == "\n", "the live line is ended before the error: \(outcome.stdout.debugDescription)")
        }
    }

    @Test("--help shows a task-oriented example for every command")
    func helpExamples() throws {
        let help = try Binaries.run(Binaries.client, ["--help"])
        let section = help.stdout.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        // A command's row is indented by two spaces and starts with its name; the wrapped rest of
        // its abstract is indented by more, and the closing "See 'reqd-client help …'" is no name.
        let commands = section.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "help" && $0.allSatisfy { $0.isLowercase || $0 == "-" } }
        #expect(commands.count >= 10, "\(help.stdout)")
        for command in commands {
            #expect(help.stdout.contains("reqd-client \(command) "), "no example for \(command)")
        }
    }

    @Test("a user outside the socket's group is told to join that group and log in again, not to start the daemon")
    func permissionDenied() throws {
        guard getuid() == 0 else {
            Issue.record("this test needs root to run a client as a second uid")
            return
        }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }
        chmod(directory, 0o755)
        let refused = try Binaries.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.client, "--socket", daemon.socket, "status"])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("permission denied"), "\(refused.stderr)")
        #expect(refused.stderr.contains("group 'root'") && refused.stderr.contains("socket.group"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("usermod -aG root"), "nobody should be told to join root")
        #expect(refused.stderr.contains("log in again"))
        // A socket of a group of its own: the advice is to join it.
        let groupedDirectory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: groupedDirectory) }
        let grouped = try DaemonProcess(directory: groupedDirectory, extraArguments: ["--set", "socket.group=nogroup"])
        defer { grouped.stop() }
        let other = try Binaries.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=1", "--clear-groups", Binaries.client, "--socket", grouped.socket, "status"])
        #expect(other.status == 69)
        #expect(other.stderr.contains("usermod -aG nogroup") && other.stderr.contains("log in again"), "\(other.stderr)")
        #expect(!refused.stderr.contains("systemctl start"))
    }
}
