import Foundation
import ReqdCore
import ReqdProtocol
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("SQLite job store")
struct JobStoreTests {
    private func record(_ id: String, key: String?, state: JobState = .active) -> JobRecord {
        JobRecord(
            id: id, owner: 1000, kind: .countdown, state: state, key: key, scope: "s",
            createdAt: WallTime(nanosecondsSinceEpoch: 1_000), endedAt: nil, reason: nil, replacedBy: nil,
            deadline: WallTime(nanosecondsSinceEpoch: 9_000_000_000), tickNanos: 1_000_000_000, lateByNanos: nil)
    }

    @Test("batches submitted together share one commit and report every barrier")
    func groupCommit() throws {
        let directory = TemporaryDirectory()
        let commits = Mutex<[[CommitToken]]>([])
        let store = try JobStore(directory: directory.path) { tokens, failure in
            #expect(failure == nil)
            commits.withLock { $0.append(tokens) }
        }
        for index in 0..<200 {
            var batch = StoreBatch()
            batch.changes = [.insert(record("cd_\(index)", key: "k\(index)"))]
            batch.barriers = [CommitToken(UInt64(index))]
            store.submit(batch)
        }
        store.flush()
        let reported = commits.withLock { $0 }
        #expect(reported.flatMap { $0 }.map(\.rawValue).sorted() == (0..<200).map(UInt64.init))
        #expect(reported.count < 200)
        #expect(try store.loadAll().count == 200)
    }

    @Test("an insert with a key supersedes the active row with that key in the same transaction")
    func insertSupersedes() throws {
        let directory = TemporaryDirectory()
        let store = try JobStore(directory: directory.path) { _, _ in }
        var batch = StoreBatch()
        batch.changes = [.insert(record("cd_old", key: "k")), .insert(record("cd_new", key: "k"))]
        store.submit(batch)
        store.flush()
        let rows = Dictionary(uniqueKeysWithValues: try store.loadAll().map { ($0.id, $0) })
        #expect(rows["cd_old"]?.state == .cancelled)
        #expect(rows["cd_old"]?.reason == .superseded)
        #expect(rows["cd_old"]?.replacedBy == "cd_new")
        #expect(rows["cd_new"]?.state == .active)
    }

    @Test("records round-trip with every field")
    func roundTrip() throws {
        let directory = TemporaryDirectory()
        let store = try JobStore(directory: directory.path) { _, _ in }
        var ended = record("cd_e", key: nil, state: .expired)
        ended.endedAt = WallTime(nanosecondsSinceEpoch: 5)
        ended.lateByNanos = 42
        var batch = StoreBatch()
        batch.changes = [.insert(record("cd_a", key: "k")), .update(ended), .insert(record("cd_gone", key: nil)), .delete("cd_gone")]
        store.submit(batch)
        store.close()
        let reopened = try JobStore(directory: directory.path) { _, _ in }
        let rows = try reopened.loadAll().sorted { $0.id < $1.id }
        #expect(rows == [record("cd_a", key: "k"), ended])
    }

    @Test("a new file migrates from version 0 to the current schema; a newer file is refused")
    func migrations() throws {
        let directory = TemporaryDirectory()
        do {
            let database = try SQLiteDatabase(path: directory.path + "/reqd.sqlite3")
            #expect(try database.scalar("PRAGMA user_version") == 0)
            try StoreSchema.migrate(database)
            #expect(try database.scalar("PRAGMA user_version") == Int64(StoreSchema.currentVersion))
            try database.execute("PRAGMA user_version = 99")
        }
        #expect {
            _ = try JobStore(directory: directory.path) { _, _ in }
        } throws: { error in
            (error as? StorageError)?.code == .unsupportedVersion
        }
    }
}
