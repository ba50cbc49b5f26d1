import Foundation
import Testing

@Suite("The state directory's one writer, end to end")
struct StateDirectoryBinaryTests {
    @Test("a second reqd on the same state directory exits non-zero within a second, naming the directory and the first one's pid; after SIGKILL of the first, a new one starts")
    func secondDaemon() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try DaemonProcess(directory: directory)
        let registered = try Binaries.client(["register-countdown", "--key", "kept", "--seconds", "600"], socket: first.socket)
        #expect(registered.status == 0, "\(registered.stderr)")

        let started = Date()
        let second = try Binaries.run(
            Binaries.reqd, ["--socket", directory + "/other.sock", "--state-dir", directory + "/state", "--log-target", "stderr"],
            timeout: 10)
        let took = Date().timeIntervalSince(started)
        #expect(second.status != 0)
        #expect(took < 1, "the second daemon took \(took) s to give up")
        #expect(second.stderr.contains(directory + "/state"), "\(second.stderr)")
        #expect(second.stderr.contains("pid \(first.process.processIdentifier)"), "\(second.stderr)")
        #expect(try Binaries.client(["status"], socket: first.socket).status == 0, "the first daemon carries on")

        first.stop(signal: SIGKILL)
        let third = try DaemonProcess(directory: directory)
        let listed = try Binaries.client(["--json", "list", "--key", "kept"], socket: third.socket)
        #expect(listed.stdout.contains("\"state\":\"active\""), "the durable job came back: \(listed.stdout)")
        #expect(third.stop() == 0)
    }

    @Test(
        "a store file the daemon's user cannot read: reqd refuses to start, says why, and leaves the file",
        .enabled(if: getuid() == 0, "running the daemon as another uid needs root (CI runs as root)"))
    func unreadableStore() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(chown(state, 65534, 65534) == 0)
        chmod(state, 0o700)
        let store = state + "/reqd.sqlite3"
        let contents = Data("SQLite format 3\0 and then whatever a root-owned file holds".utf8)
        FileManager.default.createFile(atPath: store, contents: contents, attributes: [.posixPermissions: 0o600])
        let outcome = try Binaries.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.reqd, "--socket", state + "/reqd.sock", "--state-dir", state, "--log-target", "stderr"],
            timeout: 10)
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("cannot open the job store"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("left the file as it was"), "\(outcome.stderr)")
        #expect(FileManager.default.contents(atPath: store) == contents)
        #expect(!FileManager.default.fileExists(atPath: state + "/reqd.sock"))
    }
}
