import Dispatch
import Glibc
import PostgresNIO

/// This daemon's lease on a PostgreSQL cluster: its row in `daemons`, renewed on a connection of
/// its own, which also hears the notices of jobs that other daemons end.
///
/// A connection of its own, so that a long commit, claim or start-up read on the store's
/// connection never holds a renewal back. Used on the lease keeper's queue only.
final class PostgresLease: StoreLease {
    private let session: PostgresSession
    private let schema: String
    let holder: String
    let leaseNanos: Int64
    /// How far ahead the free rows of a daemon that died are claimed.
    private let horizonNanos: Int64
    let takenAt: DispatchTime
    /// The other daemons seen at the last renewal: one gone since means its rows are free.
    private var others: Set<String> = []

    /// Joins the cluster: removes the row of `previous` (the daemon that ran before this one in
    /// its state directory, which the directory's lock says is gone, so its jobs are free at once
    /// rather than when its lease expires) and adds this daemon's row.
    init(
        session: PostgresSession, schema: String, holder: String, previous: String?, node: String, leaseNanos: Int64, horizonNanos: Int64
    ) throws(DaemonError) {
        self.session = session
        self.horizonNanos = horizonNanos
        self.schema = schema
        self.holder = holder
        self.leaseNanos = leaseNanos
        if let previous { try session.run("DELETE FROM daemons WHERE id = ?1", [.text(previous)]) }
        takenAt = .now()
        try session.run(
            "INSERT INTO daemons (id, node, pid, lease_until) VALUES (?1, ?2, ?3, now() + make_interval(secs => ?4))",
            [.text(holder), .text(node), .integer(Int64(getpid())), .real(Double(leaseNanos) / 1e9)])
        // A daemon that leaves from now on frees rows that the start's claim cannot have seen.
        try session.read("SELECT id FROM daemons WHERE id <> ?1", [.text(holder)]) { row in
            if let id = row.text(0) { others.insert(id) }
        }
    }

    func renew() throws(DaemonError) {
        // One statement that commits before it is answered: a lone UPDATE is answered before its
        // implicit transaction commits, which a server stopped between the two rolls back, and
        // this daemon would count on a lease the others do not see. A block takes no values:
        // the holder is hexadecimal digits, and the lease a number.
        let block = """
            DO $reqd$ BEGIN
            UPDATE daemons SET lease_until = now() + make_interval(secs => \(Double(leaseNanos) / 1e9)::float8)
            WHERE id = '\(holder.filter(\.isHexDigit))' AND lease_until > now();
            IF NOT FOUND THEN RAISE EXCEPTION 'this daemon''s lease has expired' USING ERRCODE = '\(PostgresStoreBackend.leaseExpired)'; END IF;
            COMMIT;
            END $reqd$
            """
        do throws(DaemonError) {
            try session.run(block)
        } catch where error.code == .leaseLost {
            throw DaemonError(.leaseLost, "\(session.location): this daemon's lease had expired; other daemons may run its jobs now")
        }
    }

    func survey() throws(DaemonError) -> LeaseRenewal {
        var seen: Set<String> = []
        var expired = false
        var next = leaseNanos / 3
        try session.read("SELECT id, extract(epoch FROM lease_until - now())::float8 FROM daemons WHERE id <> ?1", [.text(holder)]) {
            row in
            guard let id = row.text(0), let left = row.real(1) else { return }
            seen.insert(id)
            if left <= 0 {
                expired = true
            } else {
                // Just after it expires, so that its jobs are taken over then.
                next = min(next, Int64(left * 1e9) + 20_000_000)
            }
        }
        defer { others = seen }
        // Rows whose holder is gone, however they came to be, due within the horizon. The
        // holders are walked through the index one value at a time, and each one's rows by when
        // they are due, so the check costs a few lookups per holder, not a pass over every row.
        var stray = false
        let due = "(j.due_ns IS NULL OR j.due_ns < \(PostgresStoreBackend.nowNanos) + ?1)"
        try session.read(
            """
            SELECT 1::bigint WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.holder IS NULL AND \(due)) OR EXISTS (
                WITH RECURSIVE h AS (
                    (SELECT holder FROM jobs WHERE holder IS NOT NULL ORDER BY holder LIMIT 1)
                    UNION ALL
                    SELECT (SELECT holder FROM jobs WHERE holder > h.holder ORDER BY holder LIMIT 1) FROM h WHERE h.holder IS NOT NULL)
                SELECT 1 FROM h WHERE h.holder IS NOT NULL AND NOT EXISTS (SELECT 1 FROM daemons d WHERE d.id = h.holder)
                  AND EXISTS (SELECT 1 FROM jobs j WHERE j.holder = h.holder AND \(due)))
            """, [.integer(horizonNanos)]
        ) { _ in stray = true }
        return LeaseRenewal(nextNanos: next, orphans: expired || stray || !others.isSubset(of: seen))
    }

    func listen(_ heard: @escaping @Sendable (ClusterNotice) -> Void) throws(DaemonError) {
        let holder = holder
        let schema = schema
        let add: (PostgresConnection) -> Void = { connection in
            connection.addListener(channel: schema) { _, notice in
                if let notice = ClusterNotice(payload: notice.payload, for: holder) { heard(notice) }
            }
        }
        // Every connection from now on listens; postgres-nio sends the `LISTEN`.
        session.onConnect = add
        if let open = session.openConnection { add(open) } else { _ = try session.connected() }
    }

    func leave() {
        // Leaving frees this daemon's rows at once, and tells the others to claim them now.
        try? session.run("DELETE FROM daemons WHERE id = ?1", [.text(holder)])
        try? session.read("SELECT pg_notify(?1, ?2)", [.text(schema), .text("* left " + holder)]) { _ in }
        session.close()
    }
}
