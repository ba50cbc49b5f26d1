import Foundation
import Testing

@Suite("Socket activation, end to end")
struct SocketActivationBinaryTests {
    @Test("more than one socket from systemd is refused at start, naming LISTEN_FDS: a second would be left listening, unserved")
    func twoSocketsRefused() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, second) = (directory + "/a.sock", directory + "/b.sock")
        // systemd-socket-activate listens on both and execs reqd, passing them, on the first connection.
        Thread {
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: first), Date() < deadline { usleep(20_000) }
            _ = try? Binaries.client(["status"], socket: first, timeout: 5)
        }.start()
        let outcome = try Binaries.run(
            "/usr/bin/systemd-socket-activate",
            ["-l", first, "-l", second, Binaries.reqd, "--socket", first, "--state-dir", directory + "/state", "--log-target", "stderr"],
            timeout: 20)
        #expect(outcome.status == 1, "\(outcome.status) \(outcome.stderr)")
        #expect(outcome.stderr.contains("systemd passed 2 sockets (LISTEN_FDS)"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/reqd.sqlite3"), "refused before the store was opened")
    }
}
