import Glibc
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// A PostgreSQL store: the jobs of one cluster in the schema `reqd_NAME` of a shared database.
///
/// One connection, used only on the store's queue, which waits for each answer: the store is
/// serial by design. A commit is one `DO` block holding all its statements: one round trip. When
/// the connection is lost the next use opens a new one.
///
/// Until leases are built, one daemon at a time runs a cluster: the connection holds the session
/// advisory lock `reqd:NAME`, and a daemon that cannot take it at start refuses to start.
final class PostgresStoreBackend: StoreBackend {
    private let configuration: PostgresConnection.Configuration
    private let schema: String
    private let lockName: String
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// postgres-nio's logger: never below `notice`, since its `trace` lines carry rows.
    private let logger: Logger
    private var connection: PostgresConnection?
    private var connections = 0
    private var closed = false
    /// The SQL each shared statement becomes here, with `$N` for `?N`.
    private var rewritten: [String: String] = [:]

    let location: String
    var dialect: StoreDialect { .postgres }

    /// Connects to `address`, takes the cluster's lock, and creates the cluster's schema or brings
    /// it to the current version.
    ///
    /// - Parameter password: used when the URL holds none.
    init(address: PostgresAddress, password: String?, cluster: String, logger: Logger) throws(DaemonError) {
        precondition(StorageSettings.isValidClusterName(cluster), "cluster names are checked when the configuration is read")
        location = "\(address) (cluster \(cluster))"
        schema = "reqd_" + cluster
        lockName = "reqd:" + cluster
        var quiet = logger
        if quiet.logLevel < .notice { quiet.logLevel = .notice }
        self.logger = quiet
        let user = address.user ?? Self.userName()
        var configuration: PostgresConnection.Configuration
        switch address.endpoint {
        case .unix(let path):
            configuration = .init(unixSocketPath: path, username: user, password: address.password ?? password, database: address.database ?? user)
        case .tcp(let host, let port):
            configuration = .init(
                host: host, port: port, username: user, password: address.password ?? password, database: address.database ?? user,
                tls: try Self.tls(address.tlsMode))
        }
        configuration.options.connectTimeout = .seconds(Int64(address.connectTimeoutSeconds ?? 10))
        configuration.options.additionalStartupParameters = [("application_name", address.applicationName ?? "reqd")]
        self.configuration = configuration
        do throws(DaemonError) {
            try migrate(on: try connected(start: true))
        } catch {
            close()
            throw DaemonError(error.code, error.message)
        }
    }

    /// A store dropped without `close()` closes its connection here.
    deinit {
        close()
    }

    /// Runs the statements as one `DO` block: one statement, so one round trip and one
    /// transaction, with the values written into it as SQL literals (postgres-nio speaks only the
    /// extended protocol, which answers each statement before it takes the next). A text value
    /// holding the block's quote falls back to one statement at a time.
    func transaction(_ statements: [StoreStatement]) throws(DaemonError) {
        guard !statements.isEmpty else { return }
        let connection = try connected()
        guard let block = Self.block(statements) else { return try transactionByStatement(statements, on: connection) }
        do {
            _ = try answer(connection.query(PostgresQuery(unsafeSQL: block), logger: logger), from: connection, statements: statements.count)
        } catch {
            throw lost(error, "the transaction failed")
        }
    }

    /// The statements as one anonymous PL/pgSQL block, their `?N` replaced by literals; nil when a
    /// text value holds the block's dollar quote.
    static func block(_ statements: [StoreStatement]) -> String? {
        var text = "DO $reqd$ BEGIN\n"
        text.reserveCapacity(statements.reduce(64) { $0 + $1.sql.utf8.count + $1.values.count * 24 })
        for statement in statements {
            let written = StoreStatement.replacingPlaceholders(in: statement.sql) { number -> String? in
                switch statement.values[number - 1] {
                case .integer(let value): return String(value)
                case .real(let value):
                    return value.isFinite ? "\(value)::float8" : "'\(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")'::float8"
                case .null: return "NULL"
                case .text(let value):
                    guard !value.contains("$reqd$") else { return nil }
                    let storable = Self.storable(value)
                    return "'" + (storable.contains("'") ? storable.replacingOccurrences(of: "'", with: "''") : storable) + "'"
                }
            }
            guard let written else { return nil }
            text += written + ";\n"
        }
        return text + "END $reqd$"
    }

    /// Runs the statements between BEGIN and COMMIT, each with its parameters bound.
    private func transactionByStatement(_ statements: [StoreStatement], on connection: PostgresConnection) throws(DaemonError) {
        var futures = [send("BEGIN", [], on: connection)]
        futures.reserveCapacity(statements.count + 2)
        for statement in statements { futures.append(send(statement.sql, statement.values, on: connection)) }
        futures.append(send("COMMIT", [], on: connection))
        let results: [Result<PostgresQueryResult, any Error>]
        do {
            results = try answer(
                EventLoopFuture.whenAllComplete(futures, on: connection.eventLoop), from: connection, statements: futures.count)
        } catch {
            throw lost(error, "the transaction failed")
        }
        var failure: (any Error)?
        for case .failure(let error) in results where failure == nil { failure = error }
        // COMMIT of a transaction a statement failed in rolls back and says so.
        let committed = (try? results.last?.get())?.metadata.command == "COMMIT"
        if let failure {
            _ = try? answer(send("ROLLBACK", [], on: connection), from: connection)
            throw lost(failure, "the transaction failed")
        }
        if !committed { throw DaemonError(.storeWriteFailed, "\(location): the transaction was rolled back") }
    }

    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        try read(sql, values, on: try connected(), row)
    }

    func close() {
        if let connection { _ = try? connection.close().wait() }
        connection = nil
        if !closed { try? group.syncShutdownGracefully() }
        closed = true
    }

    /// The open connection, or a new one set to the cluster's schema and holding its lock.
    ///
    /// After a lost connection the server may not yet have ended the old session, which still
    /// holds the lock: a new connection tries for it for up to 5 s before it gives up.
    private func connected(start: Bool = false) throws(DaemonError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        let new = try open()
        do throws(DaemonError) {
            try run("SET search_path TO \(schema)", on: new)
            // The literals of `block` double their quotes and nothing else.
            try run("SET standard_conforming_strings = on", on: new)
            var locked = false
            for attempt in 0..<(start ? 1 : 20) where !locked {
                if attempt > 0 { usleep(250_000) }
                try read("SELECT CASE WHEN pg_try_advisory_lock(hashtext(?1)) THEN 1 ELSE 0 END::bigint", [.text(lockName)], on: new) {
                    locked = $0.integer(0) == 1
                }
            }
            guard locked else {
                throw DaemonError(
                    .storeInUse,
                    "\(location) is in use by another reqd daemon; until leases are built, one daemon at a time runs a cluster. "
                        + "Stop the other, or give this one another cluster.name")
            }
        } catch {
            _ = try? new.close().wait()
            throw error
        }
        connection = new
        return new
    }

    /// Creates the cluster's schema when missing and runs each migration it lacks, each in a
    /// transaction, under the cluster's lock (held by `connection`) and a lock of its own, so
    /// daemons starting together migrate once.
    private func migrate(on connection: PostgresConnection) throws(DaemonError) {
        let lock = StoreValue.text("reqd-migrate:" + schema)
        try run("SELECT pg_advisory_lock(hashtext(?1))", [lock], on: connection)
        defer { _ = try? answer(send("SELECT pg_advisory_unlock(hashtext(?1))", [lock], on: connection), from: connection) }
        try run("CREATE SCHEMA IF NOT EXISTS \(schema)", on: connection)
        try run("CREATE TABLE IF NOT EXISTS schema_version (version bigint NOT NULL)", on: connection)
        var versions: [Int64] = []
        try read("SELECT version FROM schema_version", [], on: connection) { versions.append($0.integer(0) ?? 0) }
        if versions.isEmpty { try run("INSERT INTO schema_version VALUES (0)", on: connection) }
        let version = Int(versions.first ?? 0)
        guard version <= PostgresSchema.currentVersion else {
            throw DaemonError(
                .unsupportedStoreVersion, "\(location) has schema version \(version); this reqd knows up to \(PostgresSchema.currentVersion)")
        }
        for step in version..<PostgresSchema.currentVersion {
            try run("BEGIN", on: connection)
            do throws(DaemonError) {
                // One statement at a time: the extended protocol takes no more.
                for statement in PostgresSchema.migrations[step].split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                    try run(String(statement), on: connection)
                }
                try run("UPDATE schema_version SET version = \(step + 1)", on: connection)
                try run("COMMIT", on: connection)
            } catch {
                _ = try? answer(send("ROLLBACK", [], on: connection), from: connection)
                throw error
            }
            logger.notice("store schema migrated", metadata: ["store.location": "\(location)", "store.version": "\(step + 1)"])
        }
    }

    private func open() throws(DaemonError) -> PostgresConnection {
        connections += 1
        do {
            return try PostgresConnection.connect(on: group.next(), configuration: configuration, id: connections, logger: logger).wait()
        } catch {
            throw DaemonError(.storeOpenFailed, "cannot connect to \(location): \(Self.describe(error))")
        }
    }

    private func run(_ sql: String, _ values: [StoreValue] = [], on connection: PostgresConnection) throws(DaemonError) {
        try read(sql, values, on: connection) { _ in }
    }

    private func read(
        _ sql: String, _ values: [StoreValue], on connection: PostgresConnection, _ row: (any StoreRow) -> Void
    ) throws(DaemonError) {
        do {
            for each in try answer(send(sql, values, on: connection), from: connection).rows {
                row(PostgresStoreRow(row: each.makeRandomAccess()))
            }
        } catch {
            throw lost(error, "a statement failed")
        }
    }

    private func send(_ sql: String, _ values: [StoreValue], on connection: PostgresConnection) -> EventLoopFuture<PostgresQueryResult> {
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

    /// Waits for `future`, but not past the connection's end (a statement written after the
    /// connection closed would never be answered) nor past `statementTimeout` plus 5 ms a
    /// statement, after which the connection is closed so that the next use opens another.
    private func answer<Value: Sendable>(
        _ future: EventLoopFuture<Value>, from connection: PostgresConnection, statements: Int = 1
    ) throws -> Value {
        let promise = future.eventLoop.makePromise(of: Value.self)
        future.cascade(to: promise)
        let limit = Self.statementTimeout + .milliseconds(5 * Int64(statements))
        let deadline = NIODeadline.now() + limit
        let watch = future.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
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

    /// How long one statement may wait for the server.
    static let statementTimeout = TimeAmount.seconds(30)

    /// `sql` with each `?N` written `$N`.
    private func placeholders(_ sql: String) -> String {
        if let known = rewritten[sql] { return known }
        let text = StoreStatement.replacingPlaceholders(in: sql) { "$\($0)" } ?? sql
        rewritten[sql] = text
        return text
    }

    /// `text` as PostgreSQL's `text` can hold it: U+0000, which it cannot (SQLite's can), written
    /// as U+FFFD, so that a key or an error holding one cannot make every later commit fail.
    private static func storable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }

    /// The store error for `error`; a connection that is gone, or that the store gave up on, is
    /// dropped, so the next use opens another.
    private func lost(_ error: any Error, _ what: String) -> DaemonError {
        let gone: Set<PSQLError.Code> = [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown]
        if let connection,
            connection.isClosed || error is PostgresStoreError || (error as? PSQLError).map({ gone.contains($0.code) }) == true
        {
            _ = try? connection.close().wait()
            self.connection = nil
        }
        if let error = error as? DaemonError { return error }
        return DaemonError(.storeWriteFailed, "\(location): \(what): \(Self.describe(error))")
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

    private static func tls(_ mode: PostgresAddress.TLSMode) throws(DaemonError) -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return .disable
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        do {
            let context = try NIOSSLContext(configuration: configuration)
            return mode == .prefer ? .prefer(context) : .require(context)
        } catch {
            throw DaemonError(.storeOpenFailed, "cannot set up TLS for the PostgreSQL store: \(error)")
        }
    }

    /// The user the daemon runs as, libpq's default role.
    private static func userName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "reqd" }
        return String(cString: name)
    }
}
