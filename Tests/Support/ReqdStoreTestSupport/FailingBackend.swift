import ReqdCore
@testable import ReqdDaemon

/// A store backend that fails its transactions while `failing` is set, as a full disk does; reads,
/// claims and the rest go to the backend it wraps. For tests of what a failed commit leaves.
final class FailingBackend: StoreBackend, @unchecked Sendable {
    // @unchecked Sendable: used on the store's queue; tests set `failing` while no commit runs.
    let inner: any StoreBackend
    /// Whether the next transactions fail.
    var failing = false
    /// The transactions asked of it, each with its number of statements.
    var transactions: [Int] = []

    init(_ inner: any StoreBackend) { self.inner = inner }

    var location: String { inner.location }
    var dialect: StoreDialect { inner.dialect }

    func transaction(_ statements: [StoreStatement]) throws(DaemonError) {
        transactions.append(statements.count)
        if failing { throw DaemonError(.storeFull, "the test failed this commit") }
        try inner.transaction(statements)
    }

    func claim(all: Bool, _ read: (String, [StoreValue]) throws(DaemonError) -> Void) throws(DaemonError) { try inner.claim(all: all, read) }

    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        try inner.read(sql, values, row)
    }

    func close() { inner.close() }

    /// Writes `changes` through `store` (a store on this backend) as one commit and waits for it,
    /// failing it when `failing` is true.
    func commit(_ changes: [StoreChange], in store: JobStore, failing: Bool) {
        self.failing = failing
        var batch = StoreBatch()
        batch.changes = changes
        store.submit(batch)
        store.flush()
        self.failing = false
    }
}
