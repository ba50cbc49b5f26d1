import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to a cluster's schema, opened again when lost, with the blocking calls the store
/// makes on it. Used on one queue only, which waits for each answer.
///
/// Each new connection is set to the cluster's schema and names this daemon (`reqd.holder`, which
/// the statements of `StoreDialect` read) before `onConnect` sees it.
final class PostgresSession {
    private let configuration: PostgresConnection.Configuration
    private let group: any EventLoopGroup
    private let schema: String
    private let holder: String
    /// Statements run on each new connection after the common ones, such as timeouts.
    private let setUp: [String]
    /// postgres-nio's logger: never below `notice`, since its `trace` lines carry rows.
    private let logger: Logger
    private var connection: PostgresConnection?
    /// How many connections the session has opened: the current one's number.
    private(set) var connectionNumber = 0
    /// Between `begin` and `commit` or `rollback`: a lost connection then fails the transaction
    /// rather than being replaced, since a new one would run the rest outside it.
    private var inTransaction = false
    /// The SQL each shared statement becomes here, with `$N` for `?N`: at most
    /// `mostRewritten`, so that SQL with values written in cannot grow it for a daemon's life.
    private var rewritten: [String: String] = [:]
    /// How many statements' rewritten SQL the session keeps.
    static let mostRewritten = 1024
    /// How many statements' rewritten SQL the session keeps now.
    var rewrittenCount: Int { rewritten.count }
    /// How long one statement may wait for the server.
    let statementTimeout: TimeAmount
    /// Where the rows are, for errors: the address without its password, and the cluster.
    let location: String
    /// Called with each new connection once it is set up: for its listeners.
    var onConnect: ((PostgresConnection) -> Void)?

    init(
        configuration: PostgresConnection.Configuration, group: any EventLoopGroup, location: String, schema: String, holder: String,
        setUp: [String] = [], statementTimeout: TimeAmount = .seconds(30), logger: Logger
    ) {
        self.configuration = configuration
        self.group = group
        self.location = location
        self.schema = schema
        self.holder = holder
        self.setUp = setUp
        self.statementTimeout = statementTimeout
        var quiet = logger
        if quiet.logLevel < .notice { quiet.logLevel = .notice }
        self.logger = quiet
    }

    /// The connection, when one is open.
    var openConnection: PostgresConnection? {
        connection.flatMap { $0.isClosed ? nil : $0 }
    }

    /// The open connection, or a new one.
    func connected() throws(DaemonError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        if inTransaction {
            throw DaemonError(.storeWriteFailed, "\(location): the connection was lost in the middle of a transaction")
        }
        connectionNumber += 1
        let new: PostgresConnection
        do {
            new = try PostgresConnection.connect(on: group.next(), configuration: configuration, id: connectionNumber, logger: logger).wait()
        } catch {
            throw DaemonError(.storeOpenFailed, "cannot connect to \(location): \(Self.describe(error))")
        }
        connection = new
        do throws(DaemonError) {
            // The literals of `PostgresStoreBackend.script` double their quotes and nothing else.
            for statement in ["SET search_path TO \(schema)", "SET standard_conforming_strings = on", "SET reqd.holder = '\(holder)'"]
                + setUp
            {
                try run(statement)
            }
        } catch {
            close()
            throw error
        }
        onConnect?(new)
        return new
    }

    /// Starts a transaction (`sql` is its `BEGIN`), pinned to this connection.
    func begin(_ sql: String = "BEGIN") throws(DaemonError) {
        try run(sql)
        inTransaction = true
    }

    /// Commits the transaction `begin` started; throws unless the server says it committed.
    func commit() throws(DaemonError) {
        defer { inTransaction = false }
        let connection = try connected()
        let tag: String
        do {
            tag = try answer(send("COMMIT", [], on: connection), from: connection).metadata.command
        } catch {
            throw lost(error, "the commit failed")
        }
        guard tag == "COMMIT" else { throw DaemonError(.storeWriteFailed, "\(location): the transaction was rolled back") }
    }

    /// Runs `body` in a transaction (`begin` is its BEGIN) that commits when `body` returns, once
    /// the server says it committed, and rolls back when it throws.
    func inTransaction<T>(_ begin: String = "BEGIN", _ body: () throws(DaemonError) -> T) throws(DaemonError) -> T {
        try self.begin(begin)
        do throws(DaemonError) {
            let result = try body()
            try commit()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls the transaction `begin` started back; when that fails, the connection is closed,
    /// which ends the transaction on the server.
    func rollback() {
        defer { inTransaction = false }
        guard openConnection != nil else { return }
        do throws(DaemonError) {
            try run("ROLLBACK")
        } catch {
            close()
        }
    }

    /// Runs a statement, ignoring its rows.
    func run(_ sql: String, _ values: [StoreValue] = []) throws(DaemonError) {
        try read(sql, values) { _ in }
    }

    /// Runs a statement, handing each result row to `row` before it returns.
    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        let connection = try connected()
        do {
            for each in try answer(send(sql, values, on: connection), from: connection).rows {
                row(PostgresStoreRow(row: each.makeRandomAccess()))
            }
        } catch {
            throw lost(error, "a statement failed")
        }
    }

    /// Prepares `sql` (`?N` written `$N`) on `connection` as `name`, for `EXECUTE`; false when
    /// the server answers with an error, as it does when it cannot infer the type of a value
    /// (or when a pooler handed over a session that already holds the name).
    func prepare(_ sql: String, as name: String, on connection: PostgresConnection) throws(DaemonError) -> Bool {
        do {
            _ = try answer(send("PREPARE \(name) AS \(sql)", [], on: connection), from: connection)
            return true
        } catch let error where Self.sqlState(error) != nil && !connection.isClosed {
            return false
        } catch {
            throw lost(error, "a statement could not be prepared")
        }
    }

    /// Sends a statement with its values bound, `?N` written `$N`.
    func send(_ sql: String, _ values: [StoreValue], on connection: PostgresConnection) -> EventLoopFuture<PostgresQueryResult> {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(Self.storable(text))
            case .null: bindings.appendNull()
            }
        }
        return connection.query(PostgresQuery(unsafeSQL: placeholders(sql), binds: bindings), logger: logger)
    }

    /// Sends SQL as it is, no values bound: a `?N` in it stays as it is.
    func send(unsafeSQL sql: String, on connection: PostgresConnection) -> EventLoopFuture<PostgresQueryResult> {
        connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Waits for `future`, but not past the connection's end (a statement written after the
    /// connection closed would never be answered) nor past `statementTimeout` plus 5 ms a
    /// statement, after which the connection is closed so that the next use opens another.
    func answer<Value: Sendable>(_ future: EventLoopFuture<Value>, from connection: PostgresConnection, statements: Int = 1) throws -> Value {
        let promise = future.eventLoop.makePromise(of: Value.self)
        future.cascade(to: promise)
        let limit = statementTimeout + .milliseconds(5 * Int64(statements))
        let deadline = NIODeadline.now() + limit
        let watch = future.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { _ in
            if connection.isClosed {
                promise.fail(PostgresStoreError("the connection closed before the server answered"))
            } else if NIODeadline.now() > deadline {
                promise.fail(PostgresStoreError("the server did not answer within \(limit.nanoseconds / 1_000_000) ms"))
                connection.close().whenComplete { _ in }
            }
        }
        promise.futureResult.whenComplete { _ in watch.cancel() }
        return try promise.futureResult.wait()
    }

    /// The store error for `error`; a connection that is gone, or that the store gave up on, is
    /// dropped, so the next use opens another.
    func lost(_ error: any Error, _ what: String) -> DaemonError {
        let gone: Set<PSQLError.Code> = [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown]
        if let connection,
            connection.isClosed || error is PostgresStoreError || (error as? PSQLError).map({ gone.contains($0.code) }) == true
        {
            close()
        }
        if let error = error as? DaemonError { return error }
        if Self.sqlState(error) == PostgresStoreBackend.leaseExpired {
            return DaemonError(.leaseLost, "\(location): \(what): this daemon's lease has expired")
        }
        return DaemonError(.storeWriteFailed, "\(location): \(what): \(Self.describe(error))")
    }

    /// Closes the connection; the next use opens another.
    func close() {
        if let connection { _ = try? connection.close().wait() }
        connection = nil
    }

    /// The SQLSTATE the server gave for `error`, if it gave one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// What went wrong, in words that name no parameter values: the server's message and SQLSTATE,
    /// or the connection's failure.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PostgresStoreError { return error.reason }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo {
            return "\(info[.message] ?? "the server refused it") (SQLSTATE \(info[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(error.code.description): \(underlying)" }
        return error.code.description
    }

    /// `text` as PostgreSQL's `text` can hold it: U+0000, which it cannot (SQLite's can), written
    /// as U+FFFD, so that a key or an error holding one cannot make every later commit fail.
    static func storable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }

    /// `sql` with each `?N` written `$N`.
    private func placeholders(_ sql: String) -> String {
        if let known = rewritten[sql] { return known }
        let text = StoreStatement.replacingPlaceholders(in: sql) { "$\($0)" } ?? sql
        // Full (SQL with values written in, such as a list's limit): start again, so that the
        // statements in use come back and those filling it go.
        if rewritten.count >= Self.mostRewritten { rewritten.removeAll(keepingCapacity: true) }
        rewritten[sql] = text
        return text
    }
}
