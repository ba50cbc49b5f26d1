import Foundation
import ReqdDaemon
import Testing

/// Starting and stopping many daemons in one process gives back what each one took.
///
/// Run with the rest of the target under `--no-parallel` (as scripts/test does): other suites
/// running beside it would move the process-wide counts.
@Suite("Daemon start and stop", .serialized)
struct DaemonLifecycleTests {
    /// One daemon's life: start, one connection and a request, stop. Returns the loop, to check it is freed.
    private static func cycle() throws -> SchedulerLoop {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        let client = try LineClient(path: daemon.socketPath)
        #expect(client.call(["id": 1, "op": "register-countdown", "key": "k", "duration_ms": 60_000])?["ok"] as? Bool == true)
        daemon.stop()
        return daemon.loop
    }

    @Test("100 starts and stops give back descriptors, threads and memory, and free each loop")
    func startStopHundredTimes() throws {
        for _ in 0..<5 { _ = try Self.cycle() }
        let before = ProcessResources.current()
        for _ in 0..<100 {
            weak let loop = try Self.cycle()
            #expect(loop == nil, "the loop outlived its daemon: a retain cycle")
        }
        let after = ProcessResources.current()
        print("100 start/stop cycles: before \(before); after \(after)")
        #expect(after.descriptors <= before.descriptors + 2)
        #expect(after.threads <= before.threads + 2)
        #expect(after.residentBytes <= before.residentBytes + 2 << 20)
    }

    @Test("a start that fails part-way leaks nothing, 20 times over, and harms nothing")
    func failedStarts() throws {
        let live = TemporaryDirectory()
        let running = try startDaemon(in: live)
        defer { running.stop() }
        let notASocket = live.path + "/not-a-socket"
        _ = FileManager.default.createFile(atPath: notASocket, contents: Data("keep me".utf8))

        func failedStart(_ socketPath: String, _ expected: DaemonError.Code) {
            let directory = TemporaryDirectory()
            #expect {
                _ = try startDaemon(in: directory) { $0.socketPath = socketPath }
            } throws: { error in
                (error as? DaemonError)?.code == expected
            }
        }
        failedStart(running.socketPath, .alreadyRunning)
        failedStart(notASocket, .socketPathInUse)
        let before = ProcessResources.current()
        for _ in 0..<10 {
            failedStart(running.socketPath, .alreadyRunning)
            failedStart(notASocket, .socketPathInUse)
        }
        let after = ProcessResources.current()
        print("20 failed starts: before \(before); after \(after)")
        #expect(after.descriptors <= before.descriptors + 2)
        #expect(after.threads <= before.threads + 2)
        #expect(try String(contentsOfFile: notASocket, encoding: .utf8) == "keep me")
        #expect(try LineClient(path: running.socketPath).call(["id": 1, "op": "status"])?["ok"] as? Bool == true)
    }
}
