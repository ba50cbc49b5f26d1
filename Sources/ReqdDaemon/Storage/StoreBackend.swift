/// The database a `JobStore` keeps its rows in: SQLite (the embedded default) or PostgreSQL.
///
/// The store turns changes into statements and rows into jobs the same way for both (`StoreCoding`);
/// a backend only runs SQL. It is touched only on its store's queue.
protocol StoreBackend: AnyObject {
    /// Where the rows are, for logs and errors: a file's path, or a database's address without its
    /// password.
    var location: String { get }
    /// The SQL the database speaks where dialects differ.
    var dialect: StoreDialect { get }
    /// Runs `statements` in one transaction; when one fails, none of them holds.
    func transaction(_ statements: [StoreStatement]) throws(DaemonError)
    /// Claims the rows this daemon is to run and hands `read` the condition on `jobs j` that picks
    /// them, with its parameters (with `all`, every row the daemon holds), to read them before the claim commits: a
    /// claim whose rows cannot be read is undone. `read` is not called when nothing is claimed
    /// and `all` is false.
    ///
    /// SQLite's one daemon has every row, claimed once at start. A PostgreSQL daemon takes the
    /// rows that no live daemon holds: at start, and when another daemon leaves or its lease
    /// expires.
    func claim(all: Bool, _ read: (String, [StoreValue]) throws(DaemonError) -> Void) throws(DaemonError)
    /// Runs a read, handing each result row to `row` before it returns.
    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError)
    /// Runs one statement that changes rows, handing each row it returns to `row`, and returns
    /// only once the change has committed; when it throws, the rows handed over do not count.
    func write(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError)
    /// Closes the connection; the backend is not used again.
    func close()
}

extension StoreBackend {
    /// A statement alone is its own transaction, committed before the call returns (SQLite's
    /// autocommit); PostgreSQL answers a statement before its commit, and writes in a
    /// transaction of its own instead.
    func write(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        try read(sql, values, row)
    }
}
