import Foundation
import Logging
import ReqdCore
import ReqdProtocol
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdDaemon
@testable import ReqdStoreTestSupport

/// A real store behind a `Harness`, so that the core's tests run unchanged against SQLite and
/// PostgreSQL: `REQD_CORE_STORE=sqlite` or `postgres` (scripts/test runs the core's tests both ways).
///
/// Each turn's `.persist` changes are one batch, written in order as the daemon writes them. With
/// `autoCommit` off, a turn's batch and every one after it wait until the test completes one of
/// its commits, and a commit the test fails (`.commitCompleted` with a failure) fails in the store
/// too. The harness then reads the rows it restores from and the attempts it answers with from
/// the store, not from its own list of changes.
final class HarnessStore {
    /// `REQD_CORE_STORE`, when it is set and not empty.
    static var named: String? { ProcessInfo.processInfo.environment["REQD_CORE_STORE"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The store named by `REQD_CORE_STORE`, or nil when none is; another name stops the tests.
    static func fromEnvironment() -> HarnessStore? {
        switch named {
        case nil: nil
        case "sqlite": HarnessStore(postgres: false)
        case "postgres": HarnessStore(postgres: true)
        case let other?: fatalError("REQD_CORE_STORE is sqlite or postgres, not \(other)")
        }
    }

    /// The claim's horizon on PostgreSQL: 60 years, since a row is due by the injected clock (in
    /// 2027) and claimed by the database's.
    static let horizonNanos: Int64 = 60 * 365 * 86_400 * 1_000_000_000

    /// The lease on PostgreSQL: an hour, since the harness's store renews none.
    static let leaseNanos: Int64 = 3_600_000_000_000

    private let postgres: Bool
    private let directory: String
    private let cluster = TestPostgres.clusterName("core")
    private var opened: (store: JobStore, backend: FailingBackend)?
    /// The changes of the turn in progress, in order.
    private var staged: [StoreChange] = []
    /// Turns' changes in order, each written once every one before it is: a turn whose commit the
    /// test completes itself waits with its barriers until it does, and those after it wait too.
    private var queue: [(changes: [StoreChange], barriers: Set<CommitToken>, failing: Bool?)] = []
    /// The reasons of failed commits, as the store reports them on its queue.
    private final class Failures: Sendable {
        let reasons = Mutex<[String]>([])
    }
    private let failures = Failures()

    private init(postgres: Bool) {
        self.postgres = postgres
        var template = Array("/tmp/reqd-core-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        opened?.store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func store() -> (store: JobStore, backend: FailingBackend) {
        if let opened { return opened }
        do {
            let inner: any StoreBackend =
                postgres
                ? try PostgresStoreBackend(
                    address: try PostgresAddress(parsing: try TestPostgres.shared().url), password: nil, cluster: cluster,
                    leaseNanos: Self.leaseNanos, horizonNanos: Self.horizonNanos, logger: Logger(label: "reqd-core-test"))
                : try SQLiteStoreBackend(directory: directory, checkIntegrity: false)
            let backend = FailingBackend(inner)
            let failures = failures
            let store = JobStore(backend: backend) { _, failure in
                if let failure { failures.reasons.withLock { $0.append(failure) } }
            }
            // As a daemon does at start: on PostgreSQL, this claims the rows no live daemon holds.
            _ = try store.loadAll()
            opened = (store, backend)
            return (store, backend)
        } catch {
            fatalError("cannot open the \(postgres ? "PostgreSQL" : "SQLite") store for the harness: \(error)")
        }
    }

    /// Where the rows are: the SQLite file's path, or the PostgreSQL address and cluster.
    var location: String { store().store.location }

    /// Stages a change the scheduler asked to persist.
    func stage(_ change: StoreChange) {
        staged.append(change)
    }

    /// Ends a turn, as the daemon's does: its changes are one batch, held until the test
    /// completes one of `barriers` when it has any (`autoCommit` off), and written in turn.
    func endTurn(barriers: [CommitToken]) {
        if !staged.isEmpty || !barriers.isEmpty { queue.append((staged, Set(barriers), barriers.isEmpty ? false : nil)) }
        staged = []
        write()
    }

    /// The test completed the commit of `token`: its batch is written, failing when `failure` is
    /// given, once those before it are.
    func complete(_ token: CommitToken, failure: String?) {
        guard let index = queue.firstIndex(where: { $0.barriers.contains(token) }) else { return }
        if queue[index].failing == nil { queue[index].failing = failure != nil }
        write()
    }

    /// Writes the batches whose commits are settled, in order, up to the first still held.
    func write() {
        while let first = queue.first, let failing = first.failing {
            queue.removeFirst()
            write(first.changes, failing: failing)
        }
    }

    private func write(_ changes: [StoreChange], failing: Bool) {
        guard !changes.isEmpty else { return }
        let (store, backend) = store()
        backend.commit(changes, in: store, failing: failing)
        let failed = failures.reasons.withLock { failures in
            defer { failures = [] }
            return failures
        }
        if !failing {
            for failure in failed { Issue.record("the store refused a commit the scheduler staged: \(failure)") }
        }
    }

    /// The rows the store holds, as a restarted daemon reads them.
    func records() -> [JobRecord] {
        write()
        do {
            // In small chunks, made on other threads as a daemon's start makes them, so in any
            // order: a restore does not depend on it.
            let chunks = Mutex<[JobRecord]>([])
            try store().store.load(chunkSize: 5) { chunk, _ in chunks.withLock { $0 += chunk } }
            return chunks.withLock { $0 }
        } catch {
            Issue.record("the store could not read its rows: \(error)")
            return []
        }
    }

    /// A job's attempt log as the store has it. Asked in the middle of a turn, as a reply to
    /// `status --attempts` is, it reads after the turn's changes so far, as the daemon's read
    /// queues behind the turn's batch; a batch still held is not yet in the store.
    func attempts(of id: String) -> [AttemptInfo] {
        if queue.isEmpty, !staged.isEmpty {
            queue.append((staged, [], false))
            staged = []
        }
        write()
        let read = Mutex<[AttemptInfo]?>(nil)
        let store = store().store
        store.attempts(of: id) { attempts in read.withLock { $0 = attempts } }
        store.flush()
        guard let attempts = read.withLock({ $0 }) else {
            Issue.record("the store could not read the attempts of \(id)")
            return []
        }
        return attempts
    }

    /// The same rows, opened again as a restarted daemon opens them: what is staged is written,
    /// the store closed, and the next read opens it anew.
    func reopened() -> HarnessStore {
        write()
        // A restarted scheduler numbers its commits afresh: what the old one left held is gone, as
        // a daemon's unwritten batches are when it stops.
        queue = []
        opened?.store.close()
        opened = nil
        return self
    }
}
