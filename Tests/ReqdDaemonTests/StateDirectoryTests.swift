import Foundation
import ReqdDaemon
import Testing

@Suite("One daemon per state directory, and a store that cannot be read is never reset")
struct StateDirectoryTests {
    private static func refusal(_ body: () throws -> Daemon) -> DaemonError? {
        do {
            let daemon = try body()
            daemon.stop()
            return nil
        } catch let error as DaemonError {
            return error
        } catch {
            return nil
        }
    }

    @Test("a second daemon on the same state directory is refused at once, naming the directory and the holder; once the first stops, it starts")
    func secondDaemon() throws {
        let directory = TemporaryDirectory()
        let first = try startDaemon(in: directory)
        let started = Date()
        let error = Self.refusal { try startDaemon(in: directory) { $0.socketPath = directory.path + "/other.sock" } }
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(error?.code == .stateDirectoryLocked)
        #expect(error?.message.contains(directory.path + "/state") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("pid \(getpid())") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/other.sock"), "the refused daemon bound no socket")
        let client = try LineClient(path: directory.path + "/reqd.sock")
        #expect(client.call(["id": 1, "op": "status"])?["ok"] as? Bool == true, "the first daemon is unharmed")
        first.stop()
        let again = try startDaemon(in: directory) { $0.socketPath = directory.path + "/other.sock" }
        again.stop()
    }

    /// Starts a daemon that must refuse `state`'s store, and checks the file is as it was.
    private static func expectRefused(_ directory: TemporaryDirectory, code: DaemonError.Code? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = directory.path + "/state/reqd.sqlite3"
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory)
        let before = isDirectory.boolValue ? nil : FileManager.default.contents(atPath: store)
        let error = Self.refusal { try startDaemon(in: directory) }
        #expect(error != nil, "the daemon started on a store it cannot read", sourceLocation: sourceLocation)
        if let code { #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation) }
        #expect(error?.message.contains("left the file as it was") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/reqd.sock"), sourceLocation: sourceLocation)
        var stillDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: store, isDirectory: &stillDirectory), sourceLocation: sourceLocation)
        #expect(stillDirectory.boolValue == isDirectory.boolValue, sourceLocation: sourceLocation)
        if !isDirectory.boolValue {
            #expect(FileManager.default.contents(atPath: store) == before, "the store file was changed", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"), "a WAL was started on it", sourceLocation: sourceLocation)
    }

    @Test("a store file of garbage: refused, and left byte for byte")
    func garbage() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/state", withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) }
        _ = FileManager.default.createFile(atPath: directory.path + "/state/reqd.sqlite3", contents: Data(bytes))
        try Self.expectRefused(directory)
    }

    @Test("a directory where the store file should be: refused, and left")
    func directoryInstead() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/state/reqd.sqlite3", withIntermediateDirectories: true)
        try Self.expectRefused(directory)
    }

    @Test("a truncated store after a stop that was not clean: the integrity check refuses it, and the file is left")
    func truncated() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        let client = try LineClient(path: directory.path + "/reqd.sock")
        for index in 0..<1_000 {
            client.send(["id": index, "op": "register-countdown", "key": "countdown-\(index)", "duration_ms": 3_600_000])
        }
        var stored = 0
        while stored < 1_000, let reply = client.next() { stored += reply["ok"] as? Bool == true ? 1 : 0 }
        #expect(stored == 1_000)
        daemon.stop()
        let store = directory.path + "/state/reqd.sqlite3"
        let whole = try #require(FileManager.default.contents(atPath: store))
        #expect(whole.count > 32_768)
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: store))
        // As a daemon that was killed leaves it.
        try "pid 1\n".write(toFile: directory.path + "/state/reqd.lock", atomically: false, encoding: .utf8)
        try Self.expectRefused(directory)
    }

    @Test("after a clean stop the lock file says so, and the next start does not need to check the store")
    func cleanStopMarked() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        let lock = directory.path + "/state/reqd.lock"
        #expect((try? String(contentsOfFile: lock, encoding: .utf8)) == "pid \(getpid())\n")
        daemon.stop()
        #expect((try? String(contentsOfFile: lock, encoding: .utf8)) == "stopped\n")
    }
}
