import Foundation
import Testing

@Suite("Signals to the daemon binary")
struct SignalTests {
    @Test("SIGTERM stops the daemon every time, at once and cleanly, whenever it arrives")
    func termAlwaysStops() throws {
        for round in 0..<30 {
            let directory = makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let daemon = try DaemonProcess(directory: directory)
            // Sooner or later after it is ready, so the signal meets the daemon at different moments.
            usleep(UInt32(round % 5) * 20_000)
            let started = Date()
            kill(daemon.process.processIdentifier, SIGTERM)
            let deadline = started.addingTimeInterval(10)
            while daemon.process.isRunning, Date() < deadline { usleep(10_000) }
            try #require(!daemon.process.isRunning, "round \(round): SIGTERM did not stop the daemon within 10 s")
            #expect(daemon.process.terminationStatus == 0)
            #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file is removed on a clean stop")
        }
    }

    @Test("SIGHUP reloads without stopping, and SIGTERM still stops the daemon afterwards")
    func hangupReloads() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        for _ in 0..<3 {
            kill(daemon.process.processIdentifier, SIGHUP)
            usleep(100_000)
            #expect(daemon.process.isRunning)
            #expect(try Binaries.client(["status"], socket: daemon.socket, timeout: 5).status == 0)
        }
        #expect(daemon.stop() == 0)
    }
}
