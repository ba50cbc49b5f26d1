/// The PostgreSQL store's schema, as numbered migrations, in the cluster's own schema
/// (`reqd_NAME`); its `schema_version` table records how far it has come.
enum PostgresSchema {
    /// Each entry migrates from version `index` to `index + 1`, one statement at a time.
    static let migrations: [[String]] = [
        // Version 1: the SQLite store's tables at its version 6, with the database keeping one
        // active job per (owner, key).
        [
            """
            CREATE TABLE jobs (
                id            text PRIMARY KEY,
                owner         bigint NOT NULL,
                kind          text NOT NULL,
                state         text NOT NULL,
                key           text,
                scope         text,
                created_ns    bigint NOT NULL,
                ended_ns      bigint,
                reason        text,
                replaced_by   text,
                deadline_ns   bigint,
                tick_ns       bigint,
                late_by_ns    bigint,
                detail        text,
                polls         bigint,
                failures      bigint,
                progress      double precision,
                last_status   bigint,
                last_error    text,
                last_start_ns bigint,
                progressed    bigint,
                result        text,
                error         text,
                spawned       text,
                counters      text
            )
            """,
            "CREATE UNIQUE INDEX jobs_active_key ON jobs (owner, key) WHERE state = 'active' AND key IS NOT NULL",
            """
            CREATE TABLE group_members (
                job    text NOT NULL,
                idx    bigint NOT NULL,
                detail text NOT NULL,
                PRIMARY KEY (job, idx)
            )
            """,
            """
            CREATE TABLE attempts (
                job    text NOT NULL,
                seq    bigint NOT NULL,
                detail text NOT NULL,
                PRIMARY KEY (job, seq)
            )
            """,
        ],

        // Version 2: leases. Each live daemon has a row in `daemons`, renewed by its heartbeat;
        // each job row names the daemon that holds it, and `claim` numbers the claim that took it.
        [
            """
            CREATE TABLE daemons (
                id          text PRIMARY KEY,
                node        text NOT NULL,
                pid         bigint NOT NULL,
                started     timestamptz NOT NULL DEFAULT now(),
                lease_until timestamptz NOT NULL
            )
            """,
            "CREATE INDEX daemons_node ON daemons (node)",
            "ALTER TABLE jobs ADD COLUMN holder text",
            "ALTER TABLE jobs ADD COLUMN claim bigint",
            "CREATE INDEX jobs_holder ON jobs (holder, claim)",
            // A job that another daemon ends while this one runs it (a newer job with its key, a
            // cancel) is announced on the channel named after the schema: `HOLDER ID REPLACED_BY`.
            """
            CREATE FUNCTION ended_elsewhere() RETURNS trigger LANGUAGE plpgsql AS $f$
            BEGIN
                PERFORM pg_notify(TG_TABLE_SCHEMA, OLD.holder || ' ' || NEW.id || ' ' || coalesce(NEW.replaced_by, ''));
                RETURN NULL;
            END
            $f$
            """,
            """
            CREATE TRIGGER jobs_ended_elsewhere AFTER UPDATE OF state ON jobs FOR EACH ROW
            WHEN (OLD.state = 'active' AND NEW.state <> 'active' AND OLD.holder IS NOT NULL AND OLD.holder IS DISTINCT FROM NEW.holder)
            EXECUTE FUNCTION ended_elsewhere()
            """,
        ],

        // Version 3: clients on any daemon. A daemon that has waiters or watchers (`events`) for
        // a job another daemon holds has a row in `waits`; a job that ends tells those daemons
        // (`WAITER ID`). A job that a daemon other than its holder ends (a newer job with its
        // key, a cancel) tells its holder, whether or not its holder changed.
        [
            """
            CREATE TABLE waits (
                job    text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                daemon text NOT NULL REFERENCES daemons (id) ON DELETE CASCADE,
                events boolean NOT NULL DEFAULT false,
                PRIMARY KEY (job, daemon)
            )
            """,
            "CREATE INDEX waits_daemon ON waits (daemon)",
            // The daemon that ended the row when it was not its holder (a cancel there): the
            // holder's later writes do not undo that end.
            "ALTER TABLE jobs ADD COLUMN ended_by text",
            // `list` walks the rows in creation order, ids compared byte by byte as reqd does.
            "CREATE INDEX jobs_created ON jobs (created_ns, id COLLATE \"C\")",
            "DROP TRIGGER jobs_ended_elsewhere ON jobs",
            endedElsewhere(waiters: "DELETE FROM waits WHERE job = NEW.id RETURNING daemon"),
            """
            CREATE TRIGGER jobs_ended AFTER UPDATE OF state ON jobs FOR EACH ROW
            WHEN (OLD.state = 'active' AND NEW.state <> 'active')
            EXECUTE FUNCTION ended_elsewhere()
            """,
        ],

        // Version 4: the horizon, and waits that outlive their notice. Each row records when its
        // job next needs its holder's timer (`due_ns`; NULL: at once, or ended): the free rows
        // of a daemon that died are claimed as they come within the horizon. A job that ends
        // tells the daemons that wait for it, each of which deletes its `waits` row once it has
        // read the end, so that a notice lost on a broken connection is made up for. The trigger
        // keeps the cluster's schema as its `search_path` (the migration's own), so that an
        // update from a session with another (psql, an operator's script) works too.
        [
            "ALTER TABLE jobs ADD COLUMN due_ns bigint",
            "CREATE INDEX jobs_holder_due ON jobs (holder, due_ns)",
            endedElsewhere(waiters: "SELECT daemon FROM waits WHERE job = NEW.id", pinned: true),
        ],

        // Version 5: rows of `attempts` and `group_members` whose job has no row are dropped. A
        // spawned job whose insert failed could leave its attempts behind before each write
        // looked for the job's row.
        [
            "DELETE FROM attempts a WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = a.job)",
            "DELETE FROM group_members m WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = m.job)",
        ],

        // Version 6: commits without a block. `check_lease()` fails when the calling daemon's
        // lease has expired, and `run_commit(text)` checks it and runs a commit's statements.
        // A function's plans are kept for the session, where a `DO` block is compiled anew for
        // each commit. Both resolve names through the caller's `search_path`, the cluster's
        // schema for a daemon's connections.
        [
            """
            CREATE FUNCTION check_lease() RETURNS void LANGUAGE plpgsql AS $f$
            BEGIN
                PERFORM 1 FROM daemons WHERE id = current_setting('reqd.holder') AND lease_until > now();
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'this daemon''s lease has expired' USING ERRCODE = 'RQ001';
                END IF;
            END
            $f$
            """,
            """
            CREATE FUNCTION run_commit(statements text) RETURNS void LANGUAGE plpgsql AS $f$
            BEGIN
                PERFORM check_lease();
                EXECUTE statements;
            END
            $f$
            """,
        ],

        // Version 7: commits that commit before they answer. A statement of the extended protocol
        // is answered (CommandComplete) before its implicit transaction commits (at Sync), and a
        // server that stops between the two rolls it back: the daemon would have taken the answer
        // for a commit. A procedure's own `COMMIT` happens before its `CALL` is answered.
        [
            """
            CREATE PROCEDURE commit_statements(statements text) LANGUAGE plpgsql AS $f$
            BEGIN
                PERFORM check_lease();
                EXECUTE statements;
                COMMIT;
            END
            $f$
            """
        ],
    ]

    /// The trigger function of versions 3 and 4: it tells a job's holder when another daemon
    /// ended the job, and the daemons that `waiters` (a query over `waits`) names that it ended.
    /// `pinned` keeps the migrating session's `search_path`, the cluster's schema, for its calls.
    private static func endedElsewhere(waiters: String, pinned: Bool = false) -> String {
        """
        CREATE OR REPLACE FUNCTION ended_elsewhere() RETURNS trigger LANGUAGE plpgsql \(pinned ? "SET search_path FROM CURRENT " : "")AS $f$
        DECLARE
            w record;
        BEGIN
            IF OLD.holder IS NOT NULL AND OLD.holder IS DISTINCT FROM current_setting('reqd.holder', true) THEN
                PERFORM pg_notify(TG_TABLE_SCHEMA, OLD.holder || ' ' || NEW.id || ' ' || coalesce(NEW.replaced_by, ''));
            END IF;
            FOR w IN \(waiters) LOOP
                PERFORM pg_notify(TG_TABLE_SCHEMA, w.daemon || ' ' || NEW.id);
            END LOOP;
            RETURN NULL;
        END
        $f$
        """
    }

    /// The version a fully migrated schema has.
    static var currentVersion: Int { migrations.count }
}
