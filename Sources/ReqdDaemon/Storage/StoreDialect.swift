/// The SQL a backend's database speaks where SQLite and PostgreSQL differ: replacing a row, and
/// reading or setting one field of a JSON column.
enum StoreDialect: Sendable {
    case sqlite
    case postgres

    /// Writes a job's whole row, replacing any row with its id. Parameters `?1` … `?24` in the
    /// order of `StoreCoding.jobColumns`, and on PostgreSQL `?25`, when the job is due. There the
    /// row is held by this daemon, and a row another daemon holds is left as it is.
    ///
    /// Made once for each dialect: every durable registration writes one.
    var upsertJob: String {
        switch self {
        case .sqlite: Self.sqliteUpsertJob
        case .postgres: Self.postgresUpsertJob
        }
    }

    private static let jobColumns = [
        "owner", "kind", "state", "key", "scope", "created_ns", "ended_ns", "reason", "replaced_by", "deadline_ns",
        "tick_ns", "late_by_ns", "detail", "polls", "failures", "progress", "last_status", "last_error", "last_start_ns",
        "progressed", "result", "error", "spawned", "counters",
    ]
    private static let jobValues = "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, 1, ?21, ?22, ?23, ?24"
    private static let sqliteUpsertJob = "INSERT OR REPLACE INTO jobs (id, \(jobColumns.joined(separator: ", "))) VALUES (\(jobValues))"
    private static let postgresUpsertJob: String = {
        let all = jobColumns + ["due_ns"]
        return "INSERT INTO jobs (id, \(all.joined(separator: ", ")), holder) VALUES (\(jobValues), ?25, \(holder)) "
            + "ON CONFLICT (id) DO UPDATE SET " + all.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            + " WHERE jobs.holder = \(holder)"
    }()

    /// What a write to a job's row adds to its `WHERE`, so that it changes only a row this daemon
    /// holds: on PostgreSQL, where several daemons share the rows, a daemon that lost a job to
    /// another cannot overwrite what the other writes. Nothing on SQLite.
    var heldOnly: String {
        switch self {
        case .sqlite: ""
        case .postgres: " AND holder = \(Self.holder)"
        }
    }

    /// What a job's progress adds to its `WHERE` (`?2` is the new state), so that a row another
    /// daemon ended (a cancel there, `ended_by`) keeps that end: the holder may write the same end
    /// over it, with its own counters, but neither another end nor a running job's progress.
    /// Nothing on SQLite, whose one daemon writes every end.
    var endedElsewhereStands: String {
        switch self {
        case .sqlite: ""
        case .postgres: " AND (ended_by IS NULL OR state = ?2)"
        }
    }

    /// Whether the database holds at most one active row for an owner and key: on PostgreSQL,
    /// where several daemons share the rows, a unique index does, and an insert with a key first
    /// ends the active row that holds it, in the insert's transaction. On SQLite the one daemon
    /// keeps that rule in memory: the end of the job a newer one replaced is a change of its own,
    /// in the next commit, and should a crash come first, the restore ends the one made first
    /// (a job with a key is always made after the one it replaces: `Scheduler.newJob`).
    var keysAreUnique: Bool { self == .postgres }

    /// Whether rows carry when their job is due (`due_ns`): on PostgreSQL, where a daemon claims
    /// the free rows of another as they come within its horizon.
    var recordsDue: Bool { self == .postgres }

    /// What a job's `DELETE` adds to its `WHERE`: on PostgreSQL an ended row that a retry on
    /// this daemon made active again meanwhile stays. Nothing on SQLite.
    var endedOnly: String {
        switch self {
        case .sqlite: ""
        case .postgres: " AND state <> 'active'"
        }
    }

    /// What an `UPDATE` of another job's row adds to its `SET` when a key's newer job ends the
    /// older one: a row another daemon held is let go, so that its writes stop and a claim takes
    /// the ended row (due now), for some daemon's retention to delete it in time. Nothing on SQLite.
    var releaseRow: String {
        switch self {
        case .sqlite: ""
        case .postgres: ", holder = CASE WHEN holder = \(Self.holder) THEN holder END, claim = NULL, due_ns = NULL"
        }
    }

    /// This daemon's name on PostgreSQL: a setting of its session (`reqd.holder`), so that no
    /// statement needs it as a value.
    static let holder = "current_setting('reqd.holder')"

    /// Writes how a group member ended: `?1` the group, `?2` the member's index, `?3` its detail;
    /// nothing when the group has no row.
    var upsertMember: String {
        switch self {
        case .sqlite:
            "INSERT OR REPLACE INTO group_members (job, idx, detail) SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ?1)"
        case .postgres:
            """
            INSERT INTO group_members (job, idx, detail) SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ?1)
            ON CONFLICT (job, idx) DO UPDATE SET detail = excluded.detail
            """
        }
    }

    /// Sets the address `?3` of job `?1`'s last logged attempt when it is attempt `?2` and has none.
    var setAttemptAddress: String {
        switch self {
        case .sqlite:
            """
            UPDATE attempts SET detail = json_set(detail, '$.address', ?3)
            WHERE job = ?1 AND seq = (SELECT max(seq) FROM attempts WHERE job = ?1)
              AND json_extract(detail, '$.number') = ?2 AND json_extract(detail, '$.address') IS NULL
            """
        case .postgres:
            // jsonb refuses the escape \u0000, which a header or an error may hold: read as U+FFFD.
            """
            UPDATE attempts SET detail = jsonb_set(replace(detail, '\\u0000', '\\ufffd')::jsonb, '{address}', to_jsonb(?3::text))::text
            WHERE job = ?1 AND seq = (SELECT max(seq) FROM attempts WHERE job = ?1)
              AND (replace(detail, '\\u0000', '\\ufffd')::jsonb ->> 'number')::bigint = ?2
              AND (replace(detail, '\\u0000', '\\ufffd')::jsonb ->> 'address') IS NULL
            """
        }
    }
}
