import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("The local zone's monitor, on a real inotify watch")
struct LocalZoneMonitorTests {
    @Test("replacing `localtime` in the watched directory calls back; other files do not")
    func callsBackOnLocaltime() throws {
        let directory = TemporaryDirectory()
        let queue = DispatchQueue(label: "test.localzone")
        let calls = Mutex(0)
        let called = DispatchSemaphore(value: 0)
        let monitor = try #require(
            LocalZoneMonitor(queue: queue, directory: directory.path) {
                calls.withLock { $0 += 1 }
                called.signal()
            })
        defer { monitor.cancel() }
        _ = FileManager.default.createFile(atPath: directory.path + "/hostname", contents: Data("box\n".utf8))
        #expect(called.wait(timeout: .now() + 0.3) == .timedOut, "a file that is not localtime changed nothing")
        // As timedatectl does: a new symlink, renamed over the old name.
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/.localtime.new", withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        #expect(rename(directory.path + "/.localtime.new", directory.path + "/localtime") == 0)
        #expect(called.wait(timeout: .now() + 5) == .success)
        #expect(calls.withLock { $0 } >= 1)
    }
}
