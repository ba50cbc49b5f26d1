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
        let progress = RestartProgress()
        let perClient = 300
        // The restart on a thread of its own: as an iteration of `concurrentPerform`, which runs
        // as many at once as there are cores, it would wait on two cores for the clients to end.
        Thread {
            // Restart the server once the clients are well under way.
            while progress.acknowledged.load(ordering: .relaxed) < 100 { usleep(2_000) }
            progress.beganAt.store(progress.acknowledged.load(ordering: .relaxed), ordering: .relaxed)
            do { try server.restart() } catch { Issue.record("\(error)") }
            progress.restarted.store(true, ordering: .sequentiallyConsistent)
            progress.done.signal()
        }.start()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
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
                    progress.acknowledged.add(1, ordering: .relaxed)
                } else {
                    refusals.withLock { $0[reply?.errorCode ?? "no reply", default: 0] += 1 }
                }
            }
        }
        #expect(progress.done.wait(timeout: .now() + 120) == .success)
        let didRestart = progress.restarted.load(ordering: .sequentiallyConsistent)
        #expect(didRestart)
        #expect(progress.beganAt.load(ordering: .relaxed) < 4 * perClient, "the restart came while the clients ran")
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

/// How far the clients have come, and whether the server has restarted, shared with the thread
/// that restarts it.
private final class RestartProgress: Sendable {
    let acknowledged = Atomic<Int>(0)
    let beganAt = Atomic<Int>(0)
    let restarted = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
}
