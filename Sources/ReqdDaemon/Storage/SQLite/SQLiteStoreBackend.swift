/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`.
final class SQLiteStoreBackend: StoreBackend {
    private let database: SQLiteDatabase

    let location: String
    var dialect: StoreDialect { .sqlite }

    /// Opens (creating and migrating as needed) `reqd.sqlite3` in `directory`.
    ///
    /// A file that cannot be opened or read, or that fails the check, is left exactly as it was:
    /// the error goes up, and nothing is written to the file before the check has passed.
    ///
    /// - Parameter checkIntegrity: runs `PRAGMA quick_check` first (after a stop that was not clean).
    init(directory: String, checkIntegrity: Bool) throws(DaemonError) {
        location = directory + "/reqd.sqlite3"
        database = try SQLiteDatabase(path: location)
        if checkIntegrity {
            var findings: [String] = []
            try database.run("PRAGMA quick_check", []) { findings.append($0.text(0) ?? "") }
            guard findings == ["ok"] else {
                throw DaemonError(.storeDamaged, "\(location) failed its integrity check: \(findings.prefix(3).joined(separator: "; "))")
            }
        }
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try SQLiteSchema.migrate(database)
    }

    func transaction(_ statements: [StoreStatement]) throws(DaemonError) {
        try database.execute("BEGIN IMMEDIATE")
        do {
            for statement in statements { try database.run(statement.sql, statement.values) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func claim(all: Bool, _ read: (String, [StoreValue]) throws(DaemonError) -> Void) throws(DaemonError) {
        try read("TRUE", [])
    }

    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        // `run` calls it only before it returns.
        try withoutActuallyEscaping(row) { row throws(DaemonError) in try database.run(sql, values) { row($0) } }
    }

    func close() {
        database.close()
    }
}
