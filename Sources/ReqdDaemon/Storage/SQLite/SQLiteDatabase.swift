import CSQLite

/// A thin wrapper over one SQLite connection. Not thread-safe: `SQLiteStoreBackend` is confined to its store's queue.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: String

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (creating if needed) the database at `path`.
    init(path: String) throws(DaemonError) {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            handle = nil
            throw DaemonError(.storeOpenFailed, "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { close() }

    /// Finalizes statements and closes the connection.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close(handle) }
        handle = nil
    }

    /// Runs SQL that returns no rows.
    func execute(_ sql: String) throws(DaemonError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw DaemonError(.storeWriteFailed, message)
        }
    }

    /// Runs a cached statement with parameters, calling `row` for each result row.
    func run(_ sql: String, _ values: [StoreValue], row: ((Row) -> Void)? = nil) throws(DaemonError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .real(let number): sqlite3_bind_double(statement, index, number)
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_ROW {
                row?(Row(statement: statement))
            } else if code == SQLITE_DONE {
                return
            } else {
                throw DaemonError(code == SQLITE_FULL ? .storeFull : .storeWriteFailed, lastError)
            }
        }
    }

    /// The integer result of a one-row query such as `PRAGMA user_version`.
    func scalar(_ sql: String) throws(DaemonError) -> Int64 {
        var result: Int64 = 0
        try run(sql, []) { result = $0.integer(0) ?? 0 }
        return result
    }

    private var lastError: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

    private func prepared(_ sql: String) throws(DaemonError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw DaemonError(.storeWriteFailed, "cannot prepare statement: \(lastError)")
        }
        statements[sql] = statement
        return statement
    }

    /// One result row, read by column index.
    struct Row: StoreRow {
        let statement: OpaquePointer

        func integer(_ column: Int32) -> Int64? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
        }

        func real(_ column: Int32) -> Double? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
        }

        func text(_ column: Int32) -> String? {
            guard let pointer = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: pointer)
        }

        func withCell<Result>(_ column: Int32, _ body: (StoreCell) -> Result) -> Result {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: return body(.null)
            case SQLITE_INTEGER: return body(.integer(sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT: return body(.real(sqlite3_column_double(statement, column)))
            default:
                // The pointer first, then the length, as sqlite3_column_bytes asks.
                guard let pointer = sqlite3_column_text(statement, column) else { return body(.null) }
                return body(.text(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, column)))))
            }
        }
    }
}
