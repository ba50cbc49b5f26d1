/// The store's schema, as numbered migrations; `PRAGMA user_version` records how far a file has come.
enum SQLiteSchema {
    /// Each entry migrates from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE jobs (
            id          TEXT PRIMARY KEY,
            owner       INTEGER NOT NULL,
            kind        TEXT NOT NULL,
            state       TEXT NOT NULL,
            key         TEXT,
            scope       TEXT,
            created_ns  INTEGER NOT NULL,
            ended_ns    INTEGER,
            reason      TEXT,
            replaced_by TEXT,
            deadline_ns INTEGER,
            tick_ns     INTEGER,
            late_by_ns  INTEGER
        );
        CREATE INDEX jobs_active_key ON jobs (owner, key) WHERE state = 'active';
        """,
        // Version 2: kind-specific detail (a poll's settings and counters, a job's result) as JSON.
        """
        ALTER TABLE jobs ADD COLUMN detail TEXT;
        """,
        // Version 3: a poll's counters in columns of their own, updated in place after each answer.
        // Where they are NULL (rows written by version 2) the counters in `detail` hold.
        """
        ALTER TABLE jobs ADD COLUMN polls INTEGER;
        ALTER TABLE jobs ADD COLUMN failures INTEGER;
        ALTER TABLE jobs ADD COLUMN progress REAL;
        ALTER TABLE jobs ADD COLUMN last_status INTEGER;
        ALTER TABLE jobs ADD COLUMN last_error TEXT;
        ALTER TABLE jobs ADD COLUMN last_start_ns INTEGER;
        """,
        // Version 4: how each member of a group ended, one row per member, written as it ends;
        // it overrides the member states in the group's `detail`.
        """
        CREATE TABLE group_members (
            job    TEXT NOT NULL,
            idx    INTEGER NOT NULL,
            detail TEXT NOT NULL,
            PRIMARY KEY (job, idx)
        ) WITHOUT ROWID;
        """,
        // Version 5: what changes after a job is written (its answer, its error, the request job a
        // countdown started, a request's or a group's counters), in columns of their own, so a retry
        // or an end updates these and never rewrites the row. Where `progressed` is NULL (rows
        // written by version 4) the `detail` holds them.
        """
        ALTER TABLE jobs ADD COLUMN progressed INTEGER;
        ALTER TABLE jobs ADD COLUMN result TEXT;
        ALTER TABLE jobs ADD COLUMN error TEXT;
        ALTER TABLE jobs ADD COLUMN spawned TEXT;
        ALTER TABLE jobs ADD COLUMN counters TEXT;
        """,
        // Version 6: a request or poll job's attempt log, its last 5 rows, in the order written:
        // `seq` counts each job's rows (no clock involved).
        """
        CREATE TABLE attempts (
            job    TEXT NOT NULL,
            seq    INTEGER NOT NULL,
            detail TEXT NOT NULL,
            PRIMARY KEY (job, seq)
        ) WITHOUT ROWID;
        """,
        // Version 7: rows of `attempts` and `group_members` whose job has no row are dropped. A
        // spawned job whose insert failed could leave its attempts behind before each write
        // looked for the job's row.
        """
        DELETE FROM attempts WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = attempts.job);
        DELETE FROM group_members WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = group_members.job);
        """,
        // Version 8: no index on (owner, key). The one daemon of a file keeps its keys in memory,
        // and a restore ends the first made of two active rows with one key; the index cost each
        // durable registration a page of the commit, at a place of its own.
        """
        DROP INDEX IF EXISTS jobs_active_key;
        """,
    ]

    /// The version a fully migrated file has.
    static var currentVersion: Int { migrations.count }

    /// Brings the file to the current version, one transaction per step.
    static func migrate(_ database: SQLiteDatabase) throws(DaemonError) {
        let version = Int(try database.scalar("PRAGMA user_version"))
        guard version <= currentVersion else {
            throw DaemonError(
                .unsupportedStoreVersion,
                "\(database.path) has schema version \(version); this reqd knows up to \(currentVersion)")
        }
        for step in version..<currentVersion {
            try database.execute("BEGIN IMMEDIATE")
            do {
                try database.execute(migrations[step])
                try database.execute("PRAGMA user_version = \(step + 1)")
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }
}
