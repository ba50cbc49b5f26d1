import Dispatch
import Foundation
import Glibc
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// A PostgreSQL store: the jobs of one cluster in the schema `reqd_NAME` of a shared database.
///
/// One connection for the store, used only on the store's queue, which waits for each answer:
/// the store is serial by design. A commit is one statement that runs all of the commit's
/// statements (`transaction`): one round trip. When the connection is lost the next use opens a
/// new one.
///
/// Several daemons may share a cluster. Each has a row in `daemons` whose lease it renews on a
/// connection of its own (`PostgresLease`), and runs only the job rows that name it as their
/// holder. Every commit checks the lease first, so a daemon whose lease expired writes nothing;
/// the rows of a daemon that left or whose lease expired are claimed by the others (`claim`).
final class PostgresStoreBackend: LeasedStoreBackend {
    private let session: PostgresSession
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// The lease's own event loop, so that a large result on the store's connection never holds
    /// a renewal's answer back.
    private let leaseGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let cluster: String
    /// This daemon's name in `daemons` and in the rows it holds: new at each start.
    let holder: String
    private let postgresLease: PostgresLease
    var lease: any StoreLease { postgresLease }
    /// How many claims this daemon has made; the rows of each carry its number.
    private var claims: Int64 = 0
    /// How far ahead a claim takes another daemon's free rows.
    private let horizonNanos: Int64
    /// The daemon that ran before this one in its state directory: its rows are this one's.
    private let previousHolder: String?
    /// The first of the claims whose rows have not been read for certain: it and every claim
    /// after it, since a claim's number only grows and a read clears it.
    private var firstUnread: Int64?
    /// The statements prepared on the session's connection `preparedOn`, by their SQL.
    private var prepared: [String: Prepared] = [:]
    private var preparedOn = 0
    /// SQL the server would not prepare on that connection: written out in each script.
    private var unprepared: Set<String> = []
    private var closed = false

    let location: String
    var dialect: StoreDialect { .postgres }

    /// Connects to `address`, creates the cluster's schema or brings it to the current version,
    /// and joins the cluster as a daemon with a lease.
    ///
    /// - Parameters:
    ///   - password: used when the URL holds none.
    ///   - previousHolder: the daemon that ran before this one in its state directory, which the
    ///     directory's lock says is gone: its row is removed, so its jobs are free at once.
    ///   - leaseNanos: how long the lease lasts without a renewal.
    ///   - horizonNanos: how far ahead a claim takes the free rows of another daemon (at least
    ///     the lease); the previous holder's rows are taken whenever they are due.
    init(
        address: PostgresAddress, password: String?, cluster: String, previousHolder: String? = nil, leaseNanos: Int64,
        horizonNanos: Int64 = 60_000_000_000, logger: Logger
    ) throws(DaemonError) {
        precondition(StorageSettings.isValidClusterName(cluster), "cluster names are checked when the configuration is read")
        location = "\(address) (cluster \(cluster))"
        self.cluster = cluster
        self.previousHolder = previousHolder
        self.horizonNanos = max(horizonNanos, leaseNanos)
        let schema = "reqd_" + cluster
        holder = String(UInt64.random(in: 1 ... .max), radix: 16)
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
        // A transaction left open (a daemon that died in the middle of one written statement by
        // statement) must not hold its locks for long.
        session = PostgresSession(
            configuration: configuration, group: group, location: location, schema: schema, holder: holder,
            setUp: ["SET idle_in_transaction_session_timeout = '30s'"], logger: logger)
        // Renewals give up well within the lease, so that a stuck one is tried again in time.
        let leaseSession = PostgresSession(
            configuration: configuration, group: leaseGroup, location: location, schema: schema, holder: holder,
            setUp: ["SET lock_timeout = '2s'"], statementTimeout: .nanoseconds(max(leaseNanos / 6, 200_000_000)), logger: logger)
        do throws(DaemonError) {
            try Self.migrate(session, cluster: cluster, logger: logger)
            postgresLease = try PostgresLease(
                session: leaseSession, schema: schema, holder: holder, previous: previousHolder, node: ProcessInfo.processInfo.hostName,
                leaseNanos: leaseNanos, horizonNanos: self.horizonNanos)
        } catch {
            session.close()
            leaseSession.close()
            try? group.syncShutdownGracefully()
            try? leaseGroup.syncShutdownGracefully()
            throw DaemonError(error.code, error.message)
        }
    }

    /// The database's clock in nanoseconds since the epoch, as SQL.
    static let nowNanos = "(extract(epoch FROM now()) * 1000000000)::bigint"

    /// A store dropped without `close()` closes its connections here.
    deinit {
        close()
    }

    /// Runs the statements as one statement (`commit`): `CALL commit_statements($1)` with the
    /// commit's script, or a block for a commit with a long run of the same statements, either
    /// of which commits before the server answers. So one round trip and one transaction, since postgres-nio speaks only the extended protocol,
    /// which takes one statement at a time and answers each before the next. SQL the connection
    /// has not seen is prepared first, once per connection (`prepare`).
    func transaction(_ statements: [StoreStatement]) throws(DaemonError) {
        guard !statements.isEmpty else { return }
        let connection = try session.connected()
        if preparedOn != session.connectionNumber {
            prepared = [:]
            unprepared = []
            preparedOn = session.connectionNumber
        }
        // A commit's statements come in runs of the same SQL, which compare equal faster than
        // they hash.
        var previous: String?
        for statement in statements where statement.sql != previous {
            previous = statement.sql
            if prepared[statement.sql] == nil && !unprepared.contains(statement.sql) { try prepare(statement.sql, on: connection) }
        }
        let sent: EventLoopFuture<PostgresQueryResult>
        switch Self.commit(statements, prepared: prepared) {
        case .script(let script): sent = session.send("CALL commit_statements(?1)", [.text(script)], on: connection)
        case .block(let block): sent = session.send(unsafeSQL: block, on: connection)
        case nil: throw DaemonError(.storeWriteFailed, "\(location): a statement names a value it was not given")
        }
        do {
            _ = try session.answer(sent, from: connection, statements: statements.count)
        } catch {
            throw session.lost(error, "the transaction failed")
        }
    }

    /// Prepares `sql` on the store's connection, unless the connection holds `mostPrepared`
    /// already (a statement the store builds with a varying number of values could otherwise
    /// fill it); SQL the server will not prepare there (a value whose type it cannot infer) is
    /// written out in each script instead, until the next connection tries again.
    private func prepare(_ sql: String, on connection: PostgresConnection) throws(DaemonError) {
        guard prepared.count < Self.mostPrepared else { return }
        let name = "reqd_\(prepared.count + 1)"
        guard try session.prepare(sql, as: name, on: connection) else {
            unprepared.insert(sql)
            return
        }
        prepared[sql] = Prepared(name: name, parameters: Self.parameters(in: sql))
    }

    /// How many statements' SQL the store's session keeps rewritten: it must not grow with
    /// the values of claims or reads.
    var rewrittenCount: Int { session.rewrittenCount }

    /// The most statements the store prepares on one connection.
    static let mostPrepared = 256

    /// The SQLSTATE with which `check_lease()` (schema version 6) fails when this daemon's lease
    /// has expired.
    ///
    /// The check takes no lock: a commit that started before the lease expired and ends after
    /// another daemon reaped this one leaves rows that name no live daemon, and the next survey
    /// finds them and has them claimed.
    static let leaseExpired = "RQ001"

    func read(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        try session.read(sql, values, row)
    }

    /// In a transaction of its own, whose COMMIT is answered once it has committed: a lone
    /// statement is answered before its implicit transaction commits, which a server stopped
    /// between the two rolls back after the caller took the change as made.
    func write(_ sql: String, _ values: [StoreValue], _ row: (any StoreRow) -> Void) throws(DaemonError) {
        try session.inTransaction { () throws(DaemonError) in try session.read(sql, values, row) }
    }

    func claim(all: Bool, _ read: (String, [StoreValue]) throws(DaemonError) -> Void) throws(DaemonError) {
        claims += 1
        // A claim whose commit may have held although its answer was lost is read again.
        let first = firstUnread ?? claims
        firstUnread = first
        // Repeatable read: a row another daemon changed after this claim's snapshot (a daemon that
        // started and claimed it meanwhile, a lease renewed) fails the claim instead of being
        // taken, and the claim is tried again with a newer snapshot.
        for attempt in 1...10 {
            do throws(DaemonError) {
                try session.begin("BEGIN ISOLATION LEVEL REPEATABLE READ")
                try session.run("SET LOCAL lock_timeout = '5s'")
                try session.run("SET LOCAL idle_in_transaction_session_timeout = '10min'")
                // A daemon whose own lease expired (it was paused) claims nothing.
                var holds = false
                try session.read(
                    "SELECT 1::bigint FROM daemons WHERE id = ?1 AND lease_until > now()", [.text(holder)]
                ) { _ in holds = true }
                guard holds else { throw DaemonError(.leaseLost, "\(location): this daemon's lease has expired") }
                try session.run("DELETE FROM daemons WHERE id IN (SELECT id FROM daemons WHERE lease_until < now() FOR UPDATE SKIP LOCKED)")
                var claimed: Int64 = 0
                // The free rows: those of holders with no row in `daemons` (walked through the
                // index, one holder at a time) and those of none, due within the horizon, each
                // found through the index on (holder, due_ns); and every row of the daemon this
                // one follows in its state directory.
                let due = "(j.due_ns IS NULL OR j.due_ns < \(Self.nowNanos) + ?3)"
                try session.read(
                    """
                    WITH RECURSIVE h AS (
                        (SELECT holder FROM jobs WHERE holder IS NOT NULL ORDER BY holder LIMIT 1)
                        UNION ALL
                        SELECT (SELECT holder FROM jobs WHERE holder > h.holder ORDER BY holder LIMIT 1) FROM h WHERE h.holder IS NOT NULL),
                    gone AS (SELECT holder FROM h WHERE holder IS NOT NULL AND NOT EXISTS (SELECT 1 FROM daemons d WHERE d.id = h.holder)),
                    taken AS (
                        UPDATE jobs SET holder = ?1, claim = ?2
                        WHERE id IN (
                                SELECT id FROM jobs j WHERE j.holder = ANY (ARRAY(SELECT holder FROM gone)) AND \(due)
                                FOR UPDATE OF j SKIP LOCKED)
                           OR id IN (SELECT id FROM jobs j WHERE j.holder IS NULL AND \(due) FOR UPDATE OF j SKIP LOCKED)
                           OR id IN (SELECT id FROM jobs j WHERE j.holder = ?4 FOR UPDATE OF j SKIP LOCKED)
                        RETURNING 1)
                    SELECT count(*) FROM taken
                    """, [.text(holder), .integer(claims), .integer(horizonNanos), .init(previousHolder)]
                ) { claimed = $0.integer(0) ?? 0 }
                if all {
                    try read("j.holder = \(StoreDialect.holder)", [])
                } else if claimed > 0 || first < claims {
                    // Bound, not written in: the session keeps the SQL of each statement it runs.
                    try read("j.holder = \(StoreDialect.holder) AND j.claim BETWEEN ?1 AND ?2", [.integer(first), .integer(claims)])
                }
                try session.commit()
                firstUnread = nil
                return
            } catch {
                session.rollback()
                guard attempt < 10, error.message.contains("SQLSTATE 40001") else { throw error }
                usleep(UInt32.random(in: 5_000...50_000))
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        postgresLease.leave()
        session.close()
        try? group.syncShutdownGracefully()
        try? leaseGroup.syncShutdownGracefully()
    }

    /// Creates the cluster's schema when missing and runs each migration it lacks, each in a
    /// transaction, under a lock of its own, so daemons starting together migrate once.
    private static func migrate(_ session: PostgresSession, cluster: String, logger: Logger) throws(DaemonError) {
        let location = session.location
        let schema = "reqd_" + cluster
        let lock = StoreValue.text("reqd-migrate:" + schema)
        // A 64-bit key, so that another program's lock cannot collide with it by chance.
        try session.run("SELECT pg_advisory_lock(hashtextextended(?1, 0))", [lock])
        defer { try? session.run("SELECT pg_advisory_unlock(hashtextextended(?1, 0))", [lock]) }
        try session.run("CREATE SCHEMA IF NOT EXISTS \(schema)")
        try session.run("CREATE TABLE IF NOT EXISTS schema_version (version bigint NOT NULL)")
        var versions: [Int64] = []
        try session.read("SELECT version FROM schema_version", []) { versions.append($0.integer(0) ?? 0) }
        if versions.isEmpty { try session.run("INSERT INTO schema_version VALUES (0)") }
        let version = Int(versions.first ?? 0)
        guard version <= PostgresSchema.currentVersion else {
            throw DaemonError(
                .unsupportedStoreVersion, "\(location) has schema version \(version); this reqd knows up to \(PostgresSchema.currentVersion)")
        }
        if version == 1 {
            // A daemon of the version before leases holds the cluster's session lock while it runs,
            // and would not heed the leases.
            var free = false
            let old = StoreValue.text("reqd:" + cluster)
            try session.read("SELECT CASE WHEN pg_try_advisory_lock(hashtext(?1)) THEN 1 ELSE 0 END::bigint", [old]) {
                free = $0.integer(0) == 1
            }
            guard free else {
                throw DaemonError(
                    .storeOpenFailed, "\(location) is run by a reqd from before leases; stop it before starting this one on the cluster")
            }
            try session.run("SELECT pg_advisory_unlock(hashtext(?1))", [old])
        }
        for step in version..<PostgresSchema.currentVersion {
            try session.inTransaction { () throws(DaemonError) in
                for statement in PostgresSchema.migrations[step] { try session.run(statement) }
                try session.run("UPDATE schema_version SET version = \(step + 1)")
            }
            logger.notice("store schema migrated", metadata: ["store.location": "\(location)", "store.version": "\(step + 1)"])
        }
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
