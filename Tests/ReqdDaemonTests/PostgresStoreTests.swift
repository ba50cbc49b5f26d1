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

    @Test("text holding U+0000, which PostgreSQL's text cannot hold, is written with U+FFFD and fails no commit; an attempt's headers holding it still take an address")
    func nulCharacters() throws {
        let failures = Mutex<[String]>([])
        let store = JobStore(
            backend: try PostgresStoreBackend(
                address: try StorePlace.postgresAddress(), password: nil, cluster: TestPostgres.clusterName(), logger: Logger(label: "reqd-test")),
            onCommit: { _, failure in if let failure { failures.withLock { $0.append(failure) } } })
        defer { store.close() }
        var batch = StoreBatch()
        let attempt = AttemptInfo(
            number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, address: nil, status: nil, error: "reset\u{0}",
            headers: ["X-Odd: a\u{0}b"])
        batch.changes = [.insert(countdown("cd_nul", key: "a\u{0}b")), .attempt("cd_nul", attempt), .attemptAddress("cd_nul", number: 1, address: "192.0.2.1:80")]
        store.submit(batch)
        store.flush()
        #expect(failures.withLock { $0 } == [])
        #expect(try store.loadAll().first?.key == "a\u{FFFD}b")
        let log = Mutex<[AttemptInfo]?>(nil)
        store.attempts(of: "cd_nul") { read in log.withLock { $0 = read } }
        store.flush()
        #expect(log.withLock { $0 }?.map(\.address) == ["192.0.2.1:80"])
    }

    @Test("a commit is one DO block with the values as literals: quotes doubled, U+0000 replaced, numbers and NULL as SQL writes them; a value holding the block's quote is written statement by statement")
    func literalBlock() throws {
        let block = try #require(
            PostgresStoreBackend.block([
                StoreStatement("UPDATE jobs SET error = ?2, progress = ?3, late_by_ns = ?4 WHERE id = ?1", [.text("it's\u{0}"), .text("x"), .real(41.5), .null]),
                StoreStatement("DELETE FROM jobs WHERE id = ?1 AND owner = ?10", Array(repeating: .integer(-7), count: 10)),
            ]))
        #expect(block == "DO $reqd$ BEGIN\nUPDATE jobs SET error = 'x', progress = 41.5::float8, late_by_ns = NULL WHERE id = 'it''s\u{FFFD}';\nDELETE FROM jobs WHERE id = -7 AND owner = -7;\nEND $reqd$")
        #expect(PostgresStoreBackend.block([StoreStatement("DELETE FROM jobs WHERE id = ?1", [.text("a$reqd$b")])]) == nil)

        let cluster = TestPostgres.clusterName()
        let store = try open(cluster)
        defer { store.close() }
        var batch = StoreBatch()
        batch.changes = [.insert(countdown("cd_quote", key: "it's $reqd$ END $reqd$; DROP TABLE jobs; --"))]
        store.submit(batch)
        store.flush()
        #expect(try store.loadAll().map(\.key) == ["it's $reqd$ END $reqd$; DROP TABLE jobs; --"])
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
        // A server of its own: the other tests' server never stops under them.
        let server = try TestPostgres.startPrivate()
        defer { server.remove() }
        let failures = Mutex<[String]>([])
        let committed = Mutex<[UInt64]>([])
        let store = JobStore(
            backend: try PostgresStoreBackend(
                address: try PostgresAddress(parsing: server.url), password: nil, cluster: TestPostgres.clusterName(),
                logger: Logger(label: "reqd-test")),
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
