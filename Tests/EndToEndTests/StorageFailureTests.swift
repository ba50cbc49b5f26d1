import Foundation
import ReqdTestSupport
import Testing

/// Runs a command inside the mount namespace of `pid` (where the daemon's tmpfs is).
@discardableResult
private func inNamespace(of pid: Int32, _ arguments: [String]) throws -> Binaries.Outcome {
    try Binaries.run("/usr/bin/nsenter", ["-t", "\(pid)", "-m", "--"] + arguments)
}

@Suite("A full state directory, end to end", .serialized)
struct StorageFailureTests {
    @Test(
        "a full tmpfs refuses durable submits with storage_unavailable and no ack; everything else works; space back, submits work",
        .enabled(if: getuid() == 0, "mounting a private tmpfs needs root (CI runs as root)"))
    func fullStateDirectory() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: "{}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/state"
        let socket = directory + "/reqd.sock"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // The daemon gets a private mount namespace with a 4 MiB tmpfs as its state directory; the
        // host's mounts are untouched.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        daemon.arguments = [
            "-m", "--propagation", "private", "/bin/sh", "-c",
            #"mount -t tmpfs -o size=4m tmpfs "$0" && exec "$1" --socket "$2" --state-dir "$0" --log-target stderr"#,
            state, Binaries.reqd, socket,
        ]
        let logPath = directory + "/reqd.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        daemon.standardError = FileHandle(forWritingAtPath: logPath)
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        var ready = false
        for _ in 0..<300 where !ready {
            ready = (try? Binaries.client(["status"], socket: socket, timeout: 5))?.status == 0
            if !ready { usleep(50_000) }
        }
        try #require(ready, "reqd did not start on its tmpfs")
        let pid = daemon.processIdentifier
        let bodyFile = directory + "/body.txt"
        try String(repeating: "x", count: 200_000).write(toFile: bodyFile, atomically: true, encoding: .utf8)
        let body = "@" + bodyFile

        let before = try Binaries.client(["submit", "POST", server.url("/before"), "--data", body, "--wait"], socket: socket)
        #expect(before.status == 0, "\(before.stderr)")

        // Fill the tmpfs to the last byte.
        try inNamespace(of: pid, ["/bin/dd", "if=/dev/zero", "of=\(state)/filler", "bs=64k"])
        var refused: [Int] = []
        for index in 0..<10 {
            let outcome = try Binaries.client(["submit", "POST", server.url("/full/\(index)"), "--data", body], socket: socket)
            if outcome.status == 12 {
                #expect(outcome.stderr.contains("storage_unavailable") || outcome.stderr.contains("not stored"), "\(outcome.stderr)")
                refused.append(index)
            }
        }
        #expect(refused.count >= 5, "most durable submits are refused while the disk is full: \(refused)")
        // Everything else keeps working.
        #expect(try Binaries.client(["status"], socket: socket).status == 0)
        let ephemeral = try Binaries.client(["submit", "GET", server.url("/ephemeral"), "--ephemeral", "--wait"], socket: socket)
        #expect(ephemeral.status == 0, "\(ephemeral.stderr)")
        let countdown = try Binaries.client(["register-countdown", "--key", "k", "--seconds", "60", "--ephemeral"], socket: socket)
        #expect(countdown.status == 0)

        // Space comes back: durable submits work again.
        try inNamespace(of: pid, ["/bin/rm", "-f", "\(state)/filler"])
        var recovered = false
        for index in 0..<20 where !recovered {
            let outcome = try Binaries.client(["submit", "POST", server.url("/after/\(index)"), "--data", "small", "--wait"], socket: socket)
            recovered = outcome.status == 0
            if !recovered { usleep(100_000) }
        }
        #expect(recovered)
        usleep(300_000)
        for index in refused {
            #expect(server.records(path: "/full/\(index)").isEmpty, "a refused job was never sent")
        }
        // The log says when writes began to fail, with SQLite's error, and when they work again:
        // once per run of failures, not once per failed commit.
        let log = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        let failed = log.filter { $0.contains("job store write failed") }
        #expect(!failed.isEmpty && failed.count < refused.count, "\(failed)")
        #expect(failed.allSatisfy { $0.contains(" error ") && $0.contains("store.error=") }, "\(failed)")
        #expect(log.filter { $0.contains("job store writes recovered") }.count == failed.count)
    }
}
