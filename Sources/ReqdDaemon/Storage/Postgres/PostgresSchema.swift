/// The PostgreSQL store's schema, as numbered migrations, in the cluster's own schema
/// (`reqd_NAME`); its `schema_version` table records how far it has come.
enum PostgresSchema {
    /// Each entry migrates from version `index` to `index + 1`: statements separated by `;`, none
    /// holding a `;` of its own.
    static let migrations: [String] = [
        // Version 1: the SQLite store's tables at its version 6, with the database keeping one
        // active job per (owner, key).
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
        );
        CREATE UNIQUE INDEX jobs_active_key ON jobs (owner, key) WHERE state = 'active' AND key IS NOT NULL;
        CREATE TABLE group_members (
            job    text NOT NULL,
            idx    bigint NOT NULL,
            detail text NOT NULL,
            PRIMARY KEY (job, idx)
        );
        CREATE TABLE attempts (
            job    text NOT NULL,
            seq    bigint NOT NULL,
            detail text NOT NULL,
            PRIMARY KEY (job, seq)
        );
        """
    ]

    /// The version a fully migrated schema has.
    static var currentVersion: Int { migrations.count }
}
