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
    /// Runs a read, handing each result row to `row` before it returns.
    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError)
    /// Closes the connection; the backend is not used again.
    func close()
}
