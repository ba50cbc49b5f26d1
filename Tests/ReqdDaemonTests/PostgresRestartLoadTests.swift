import Foundation
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("A daemon on PostgreSQL while the server restarts under load")
struct PostgresRestartLoadTests {
    @Test("4 clients register durable countdowns, submits, polls and groups while PostgreSQL restarts: every acknowledged one is in the database, every other was refused storage_unavailable, and the daemon takes work again")
    func restartUnderLoad() throws {
        // A server of its own: the other tests' server never stops under them.
        let server = try TestPostgres.startPrivate()
        defer { server.remove() }
        let directory = TemporaryDirectory()
        let cluster = TestPostgres.clusterName()
        let address = try PostgresAddress(parsing: server.url)
        let target = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: #"{"state":"running"}"#) }
        defer { target.shutdown() }
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
                let request: [String: Any] =
                    switch number % 4 {
                    case 0: ["op": "register-countdown", "duration_ms": 3_600_000]
                    case 1: ["op": "submit", "method": "POST", "url": target.url("/submit/\(index)/\(number)"), "body": "{}", "dedupe_window_ms": 0]
                    case 2: poll(target.url("/poll/\(index)/\(number)"), every: 3_600_000)
                    default:
                        [
                            "op": "register-group",
                            "members": [["method": "GET", "url": target.url("/group/\(index)/\(number)/a")], ["method": "GET", "url": target.url("/group/\(index)/\(number)/b")]],
                        ]
                    }
                var call = request
                call["id"] = number
                let reply = client.call(call)
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
        #expect(Set(acked.map { $0.prefix(3) }) == ["cd_", "rq_", "pl_", "gr_"], "every kind was acknowledged: \(Set(acked.map { $0.prefix(3) }))")
        #expect(stored.isSuperset(of: acked), "acknowledged but not in the database: \(Array(Set(acked).subtracting(stored)).sorted().prefix(5)) of \(acked.count)")
        #expect(acked.count + refused.values.reduce(0, +) == 4 * perClient + 1)
        print("restart under load: \(acked.count) acknowledged, \(refused) refused")
    }
}
