import Foundation
import Testing

@Suite("The real binaries, end to end", .serialized)
struct BinaryTests {
    @Test("countdowns survive a restart with their ids and true remaining time", arguments: [SIGTERM, SIGKILL])
    func restart(signal: Int32) throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var daemon = try DaemonProcess(directory: directory)
        let registered = Date()
        let long = try Binaries.client(["--json", "register-countdown", "--key", "long", "--seconds", "20"], socket: daemon.socket)
        let soon = try Binaries.client(["--json", "register-countdown", "--key", "soon", "--seconds", "1"], socket: daemon.socket)
        let ephemeral = try Binaries.client(["--json", "register-countdown", "--key", "eph", "--seconds", "20", "--ephemeral"], socket: daemon.socket)
        let longID = try #require((long.json?["job"] as? [String: Any])?["id"] as? String)
        let soonID = try #require((soon.json?["job"] as? [String: Any])?["id"] as? String)
        let ephemeralID = try #require((ephemeral.json?["job"] as? [String: Any])?["id"] as? String)

        let status = daemon.stop(signal: signal)
        if signal == SIGTERM { #expect(status == 0) }
        usleep(1_500_000)  // "soon" expires while the daemon is down
        daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }

        let restored = try Binaries.client(["--json", "status", longID], socket: daemon.socket)
        let job = try #require(restored.json?["job"] as? [String: Any])
        #expect(job["id"] as? String == longID)
        #expect(job["state"] as? String == "active")
        let elapsed = Int(Date().timeIntervalSince(registered) * 1000)
        let remaining = try #require(job["remaining_ms"] as? Int)
        #expect(abs(remaining - (20_000 - elapsed)) < 1_000, "remaining \(remaining) ms after \(elapsed) ms")

        let expired = try Binaries.client(["--json", "wait", soonID, "--timeout", "5s"], socket: daemon.socket)
        #expect(expired.status == 0)
        let soonJob = try #require(expired.json?["job"] as? [String: Any])
        #expect(soonJob["state"] as? String == "expired")
        #expect((soonJob["late_by_ms"] as? Double ?? 0) > 400)

        let gone = try Binaries.client(["status", ephemeralID], socket: daemon.socket)
        #expect(gone.status == 10)
    }

    @Test("--follow off a terminal prints one line per event and exits 0 at expiry")
    func followLines() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }
        let outcome = try Binaries.client(["register-countdown", "--key", "order-42", "--seconds", "2", "--follow"], socket: daemon.socket)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(outcome.stdout)")
        #expect(lines.first?.hasPrefix("registered cd_") == true)
        #expect(lines.dropFirst().first?.contains("tick") == true)
        #expect(lines.dropFirst().first?.contains("00:01 left") == true)
        #expect(lines.last?.contains("expired") == true)
    }

    @Test("--follow on a terminal shows one live line that updates in place")
    func followOnTerminal() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }
        // script(1) gives the client a pseudo-terminal, as a person's shell would.
        let command = "\(Binaries.client) --socket \(daemon.socket) register-countdown --key order-42 --seconds 2 --follow"
        let outcome = try Binaries.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(outcome.status == 0)
        let updates = outcome.stdout.components(separatedBy: "\r\u{1B}[K").filter { !$0.isEmpty }
        #expect(updates.first == "order-42  00:02 left")
        #expect(updates.contains("order-42  00:01 left"))
        #expect(updates.last?.hasPrefix("order-42  expired") == true)
        #expect(outcome.stdout.filter { $0 == "\n" || $0 == "\r\n" }.count == 1, "one line, rewritten in place")
    }

    @Test("exit statuses: cancelled, unknown job, wait timeout, unreachable daemon, bad usage")
    func exitStatuses() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }
        let registered = try Binaries.client(["--json", "register-countdown", "--key", "k", "--seconds", "30"], socket: daemon.socket)
        let id = try #require((registered.json?["job"] as? [String: Any])?["id"] as? String)
        #expect(try Binaries.client(["wait", id, "--timeout", "300ms"], socket: daemon.socket).status == 124)
        #expect(try Binaries.client(["cancel", id], socket: daemon.socket).status == 0)
        #expect(try Binaries.client(["wait", id], socket: daemon.socket).status == 3)
        #expect(try Binaries.client(["status", "cd_nosuchjob0"], socket: daemon.socket).status == 10)
        #expect(try Binaries.client(["register-countdown", "--key", "k", "--seconds", "5", "--tick", "5ms"], socket: daemon.socket).status == 11, "below countdown.min_tick: the daemon refuses it")
        let unreachable = try Binaries.client(["status"], socket: directory + "/nobody.sock")
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.contains(directory + "/nobody.sock"))
        #expect(unreachable.stderr.contains("systemctl start reqd"))
        #expect(try Binaries.client(["register-countdown", "--key", "k"], socket: daemon.socket).status == 64)
    }

    @Test("a second uid sees and cancels only its own jobs; root sees everyone's")
    func ownershipWithSecondUID() throws {
        guard getuid() == 0 else {
            Issue.record("this test needs root to run a client as a second uid")
            return
        }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--set", "socket.group=nogroup"])
        defer { daemon.stop() }
        func asNobody(_ arguments: [String]) throws -> Binaries.Outcome {
            try Binaries.run(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.client, "--socket", daemon.socket] + arguments)
        }
        let rootJob = try Binaries.client(["--json", "register-countdown", "--key", "shared", "--seconds", "60"], socket: daemon.socket)
        let rootID = try #require((rootJob.json?["job"] as? [String: Any])?["id"] as? String)
        let theirs = try asNobody(["--json", "register-countdown", "--key", "shared", "--seconds", "60"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let theirID = try #require((theirs.json?["job"] as? [String: Any])?["id"] as? String)
        #expect((theirs.json?["replaced"]) == nil, "a key is per owner")

        #expect(try asNobody(["status", rootID]).status == 10)
        #expect(try asNobody(["cancel", rootID]).status == 10)
        let theirList = try asNobody(["--json", "list"])
        #expect((theirList.json?["jobs"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [theirID])
        let rootList = try Binaries.client(["--json", "list"], socket: daemon.socket)
        #expect(Set((rootList.json?["jobs"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []) == [rootID, theirID])
        #expect(try Binaries.client(["--json", "status", rootID], socket: daemon.socket).status == 0)
        #expect(try asNobody(["cancel", theirID]).status == 0)
    }

    @Test("reqd runs again in place with malloc on huge pages, keeping its pid; a GLIBC_TUNABLES already set is left alone")
    func hugePages() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = nil
        for (preset, expected) in [(nil, "glibc.malloc.hugetlb=1"), ("glibc.malloc.check=0", "glibc.malloc.check=0")] {
            let directory = makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            environment["GLIBC_TUNABLES"] = preset
            let daemon = try DaemonProcess(directory: directory, environment: environment)
            defer { daemon.stop() }
            let pid = daemon.process.processIdentifier
            let variables = try String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8).split(separator: "\0")
            #expect(variables.filter { $0.hasPrefix("GLIBC_TUNABLES=") } == ["GLIBC_TUNABLES=\(expected)"])
            let summary = try Binaries.client(["--json", "status"], socket: daemon.socket)
            #expect(summary.json?["pid"] as? Int == Int(pid))
        }
    }

    @Test("reqd --check-config accepts the shipped file, names the key of a bad setting and exits 78, or 64 on bad usage")
    func checkConfig() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let good = try Binaries.run(Binaries.reqd, ["--config", root.path + "/config/reqd.toml", "--check-config"])
        #expect(good.status == 0)
        let bad = directory + "/bad.toml"
        FileManager.default.createFile(atPath: bad, contents: Data("[jobs]\nretention = \"forever\"\n".utf8))
        let refused = try Binaries.run(Binaries.reqd, ["--config", bad, "--check-config"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("jobs.retention"))
        let environment = try Binaries.run(Binaries.reqd, ["--check-config"], environment: ["REQD_SOCKET_MODE": "banana"])
        #expect(environment.status == 78)
        #expect(environment.stderr.contains("REQD_SOCKET_MODE"))
        let unknown = try Binaries.run(Binaries.reqd, ["--set", "jobs.max_actve=5", "--check-config"])
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("jobs.max_actve"))
        let usage = try Binaries.run(Binaries.reqd, ["--set", "jobs.max_active", "--check-config"])
        #expect(usage.status == 64)
        // What start-up would refuse, --check-config refuses too.
        for (setting, key) in [
            (["storage.backend=postgres"], "storage.postgres_url"), (["socket.group=no-such-group-here"], "socket.group"),
            (["socket.path=/run/reqd-test.sock", "metrics.listen=/run/reqd-test.sock"], "metrics.listen"),
        ] {
            let refused = try Binaries.run(Binaries.reqd, setting.flatMap { ["--set", $0] } + ["--check-config"])
            #expect(refused.status == 78, "\(setting): \(refused.stderr)")
            #expect(refused.stderr.contains(key), "\(setting): \(refused.stderr)")
        }
    }
}
