import Foundation
import Logging
@testable import ReqdCore
import ReqdProtocol
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("The PostgreSQL store: its cluster, its schema, its keys, a server that restarts")
struct PostgresStoreTests {
    private func countdown(_ id: String, key: String?) -> JobRecord {
        JobRecord(
            id: id, owner: 1000, kind: .countdown, state: .active, key: key, scope: nil,
            createdAt: WallTime(nanosecondsSinceEpoch: 1_000), endedAt: nil, reason: nil, replacedBy: nil,
            deadline: WallTime(nanosecondsSinceEpoch: 9_000_000_000), tickNanos: 1_000_000_000, lateByNanos: nil)
    }

    private func open(_ cluster: String) throws -> JobStore {
        JobStore(
            backend: try PostgresStoreBackend(
                address: try StorePlace.postgresAddress(), password: nil, cluster: cluster, logger: Logger(label: "reqd-test")),
            onCommit: { _, _ in })
    }

    @Test("one daemon per cluster: a second store on it is refused naming the cluster; another cluster in the same database sees none of its rows")
    func oneDaemonPerCluster() throws {
        let cluster = TestPostgres.clusterName()
        let first = try open(cluster)
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_a", key: "k"))]
        first.submit(batch)
        first.flush()
        do {
            _ = try open(cluster)
            Issue.record("a second store opened the same cluster")
        } catch let error as DaemonError {
            #expect(error.code == .storeInUse)
            #expect(error.message.contains("cluster \(cluster)"), "\(error.message)")
        }
        let other = try open(TestPostgres.clusterName())
        #expect(try other.loadAll().isEmpty)
        other.close()
        first.close()
        let again = try open(cluster)
        #expect(try again.loadAll().map(\.id) == ["cd_a"], "once the first has closed, the cluster opens with its rows")
        again.close()
    }

    @Test("the database keeps one active job per owner and key, whoever writes the rows")
    func activeKeyIsUnique() throws {
        let cluster = TestPostgres.clusterName()
        let store = try open(cluster)
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_a", key: "k")), .insert(countdown("cd_b", key: "k"))]
        store.submit(batch)
        store.close()
        let server = try TestPostgres.shared()
        #expect(try server.psql("SELECT id, state, reason FROM reqd_\(cluster).jobs ORDER BY id") == "cd_a|cancelled|superseded\ncd_b|active|\n")
        #expect(throws: TestPostgresError.self, "a second active row with the key is refused") {
            try server.psql("INSERT INTO reqd_\(cluster).jobs (id, owner, kind, state, key, created_ns) VALUES ('cd_c', 1000, 'countdown', 'active', 'k', 1)")
        }
        _ = try server.psql("INSERT INTO reqd_\(cluster).jobs (id, owner, kind, state, key, created_ns) VALUES ('cd_d', 1001, 'countdown', 'active', 'k', 1)")
    }

    @Test("a schema newer than this reqd's is refused and left as it was")
    func newerSchemaRefused() throws {
        let cluster = TestPostgres.clusterName()
        try open(cluster).close()
        let server = try TestPostgres.shared()
        _ = try server.psql("UPDATE reqd_\(cluster).schema_version SET version = 99")
        #expect(throws: DaemonError.self) { try open(cluster) }
        do { _ = try open(cluster) } catch let error as DaemonError { #expect(error.code == .unsupportedStoreVersion, "\(error.message)") }
        #expect(try server.psql("SELECT version FROM reqd_\(cluster).schema_version") == "99\n")
    }

    @Test("while the server is down commits fail with the reason; once it is back the next commit writes them, and nothing acknowledged is lost")
    func serverRestarts() throws {
        let server = try TestPostgres.shared()
        let failures = Mutex<[String]>([])
        let committed = Mutex<[UInt64]>([])
        let store = JobStore(
            backend: try PostgresStoreBackend(
                address: try StorePlace.postgresAddress(), password: nil, cluster: TestPostgres.clusterName(), logger: Logger(label: "reqd-test")),
            onCommit: { tokens, failure in
                if let failure { failures.withLock { $0.append(failure) } } else { committed.withLock { $0 += tokens.map(\.rawValue) } }
            })
        defer { store.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_before", key: nil))]
        batch.barriers = [CommitToken(1)]
        store.submit(batch)
        store.flush()
        server.stop()
        var ended = countdown("cd_before", key: nil)
        ended.state = .expired
        ended.endedAt = WallTime(nanosecondsSinceEpoch: 9_000_000_001)
        batch.changes = [.insert(countdown("cd_during", key: nil)), .progress("cd_before", ended.progress)]
        batch.barriers = [CommitToken(2)]
        store.submit(batch)
        store.flush()
        #expect(failures.withLock { $0.count } == 1, "the registration made while the server was down was refused")
        #expect(failures.withLock { $0.first?.contains("cannot connect") == true }, "\(failures.withLock { $0 })")
        try server.restart()
        batch.changes = [.insert(countdown("cd_after", key: nil))]
        batch.barriers = [CommitToken(3)]
        store.submit(batch)
        store.flush()
        #expect(committed.withLock { $0 } == [1, 3])
        let rows = Dictionary(uniqueKeysWithValues: try store.loadAll().map { ($0.id, $0) })
        #expect(Set(rows.keys) == ["cd_before", "cd_after"], "the refused insert is not there; the acknowledged ones are")
        #expect(rows["cd_before"]?.state == .expired, "the end that waited through the outage was written")
    }

    @Test("a daemon on the PostgreSQL store keeps durable jobs across a restart; a second daemon on its cluster does not start")
    func daemonRestart() throws {
        let directory = TemporaryDirectory()
        let cluster = TestPostgres.clusterName()
        let address = try StorePlace.postgresAddress()
        func configure(_ configuration: inout Configuration) {
            configuration.storage.backend = .postgres
            configuration.storage.postgresAddress = address
            configuration.storage.clusterName = cluster
        }
        var durableID = ""
        do {
            let daemon = try startDaemon(in: directory, configure: configure)
            let client = try LineClient(path: daemon.socketPath)
            durableID = try #require(client.call(["id": 1, "op": "register-countdown", "key": "d", "duration_ms": 60_000])?.job?["id"] as? String)
            let other = TemporaryDirectory()
            do {
                let second = try startDaemon(in: other, configure: configure)
                second.stop()
                Issue.record("a second daemon started on the cluster")
            } catch let error as DaemonError {
                #expect(error.code == .storeInUse, "\(error.message)")
            }
            daemon.stop()
        }
        let server = try TestPostgres.shared()
        #expect(try server.psql("SELECT id, state FROM reqd_\(cluster).jobs") == "\(durableID)|active\n")
        let daemon = try startDaemon(in: directory, configure: configure)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let jobs = try #require(client.call(["id": 1, "op": "list"])?.result?["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["id"] as? String } == [durableID])
    }
}

@Suite("A daemon on PostgreSQL while the server restarts under load")
struct PostgresRestartLoadTests {
    @Test("4 clients register durable countdowns while PostgreSQL restarts: every acknowledged one is in the database, every other was refused storage_unavailable, and the daemon takes work again")
    func restartUnderLoad() throws {
        let server = try TestPostgres.shared()
        let directory = TemporaryDirectory()
        let cluster = TestPostgres.clusterName()
        let address = try StorePlace.postgresAddress()
        let daemon = try startDaemon(in: directory) { configuration in
            configuration.storage.backend = .postgres
            configuration.storage.postgresAddress = address
            configuration.storage.clusterName = cluster
        }
        defer { daemon.stop() }
        let acknowledged = Mutex<[String]>([])
        let refusals = Mutex<[String: Int]>([:])
        let restarted = Atomic<Bool>(false)
        let perClient = 300
        DispatchQueue.concurrentPerform(iterations: 5) { index in
            if index == 4 {
                // Restart the server once the clients are well under way.
                while acknowledged.withLock({ $0.count }) < 100 { usleep(2_000) }
                do { try server.restart() } catch { Issue.record("\(error)") }
                restarted.store(true, ordering: .sequentiallyConsistent)
                return
            }
            guard let client = try? LineClient(path: daemon.socketPath, timeoutSeconds: 30) else {
                Issue.record("no connection")
                return
            }
            for number in 0..<perClient {
                let reply = client.call(["id": number, "op": "register-countdown", "duration_ms": 3_600_000])
                if let id = reply?.job?["id"] as? String {
                    acknowledged.withLock { $0.append(id) }
                } else {
                    refusals.withLock { $0[reply?.errorCode ?? "no reply", default: 0] += 1 }
                }
            }
        }
        let didRestart = restarted.load(ordering: .sequentiallyConsistent)
        #expect(didRestart)
        let refused = refusals.withLock { $0 }
        #expect(Set(refused.keys).isSubset(of: ["storage_unavailable"]), "\(refused)")
        // The daemon takes durable work again once the server is back.
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 30)
        var after: String?
        for attempt in 0..<50 where after == nil {
            after = client.call(["id": 10_000 + attempt, "op": "register-countdown", "duration_ms": 3_600_000])?.job?["id"] as? String
            if after == nil { usleep(100_000) }
        }
        let acked = acknowledged.withLock { $0 } + [try #require(after)]
        let stored = Set(try server.psql("SELECT id FROM reqd_\(cluster).jobs").split(separator: "\n").map(String.init))
        #expect(stored.isSuperset(of: acked), "acknowledged but not in the database: \(Set(acked).subtracting(stored).prefix(5))")
        #expect(acked.count + refused.values.reduce(0, +) == 4 * perClient + 1)
        print("restart under load: \(acked.count) acknowledged, \(refused) refused")
    }
}
