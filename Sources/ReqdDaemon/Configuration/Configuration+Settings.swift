import Logging
import ReqdCore

extension Configuration {
    /// Every setting, in the order `config/reqd.toml` and the README's table list them.
    ///
    /// The one place a key is defined: add a row here, then the line in `config/reqd.toml` and the row
    /// in the README (ConfigurationTests fail until both agree with this table).
    static let settings: [Setting] = [
        Setting(
            "daemon.log_level", \.logLevel, .choice, .reload,
            "`trace` … `critical`. Job problems (failed, timed out, dead) are `notice`; healthy jobs' lines are `debug`, ticks `trace`"),
        Setting(
            "daemon.log_rate", \.logRate, .integer(0...1_000_000), .reload,
            "log lines a second at most, `error` and `critical` excepted; past it, one line a second says how many were held back. `0`: no limit"),
        Setting(
            "daemon.log_target", \.logTarget, .choice, .restart,
            "`auto` (journald when stderr is connected to it), `journal`, `stderr`"),
        Setting(
            "daemon.early_wake", \.earlyWakeNanos, .duration(allowZero: true, maximum: 1_000_000), .restart,
            "how long before a deadline more than 1 ms away the timer wakes first, so that a CPU already awake handles the deadline; `0`: one wake-up per deadline"),
        Setting(
            "socket.path", \.socketPath, .absolutePathOrDefault, .restart,
            "the socket; empty: the default place below; under socket activation the socket unit decides"),
        Setting("socket.mode", \.socketMode, .octalMode, .restart, "the socket file's mode; under socket activation reqd.socket's `SocketMode=` decides"),
        Setting(
            "socket.group", \.socketGroup, .textOrNone, .restart,
            "a group to give the socket file to; empty: the daemon's own group. Under reqd.service the system call filter allows no `chown`, so only the daemon's own group (`reqd`) works there; under socket activation reqd.socket's `SocketGroup=` decides, and gives another"),
        Setting(
            "socket.max_line_bytes", \.maxLineBytes, .integer(1_024...(64 << 20)), .reloadForNewConnections,
            "longest request line; longer gets `line_too_long`. A body travels in the line (JSON-escaped, or base64 for any bytes), so the default carries a body of `http.max_request_bytes` (1 MiB). A reload applies to new connections"),
        Setting(
            "socket.max_pending_bytes", \.maxPendingBytes, .integer(65_536...(1 << 30)), .reloadForNewConnections,
            "unread output a client may leave; past it the daemon reads none of its requests, and an event for it closes the connection. A reload applies to new connections"),
        Setting(
            "socket.max_connections", \.maxConnections, .integer(0...10_000_000), .reload,
            "client connections open at once, all users; the next gets `too_many_connections`. `0`: half of what `RLIMIT_NOFILE` leaves after 64, at least 8, the rest kept for the store, logs and outbound HTTP"),
        Setting(
            "storage.state_directory", \.stateDirectory, .absolutePathOrDefault, .restart,
            "where `reqd.sqlite3` lives; empty: the default place below"),
        Setting(
            "storage.backend", \.storage.backend, .choice, .restart,
            "`sqlite` (`reqd.sqlite3` in the state directory) or `postgres` (`storage.postgres_url`)"),
        Setting(
            "storage.postgres_url", \.storage.postgresAddress, .postgresAddress, .restart,
            "the PostgreSQL store, a libpq-style URL such as `postgres://reqd@db:5432/reqd?sslmode=verify-full`; logs show it without a password"),
        Setting(
            "storage.postgres_password_file", \.storage.postgresPasswordFile, .absolutePathOrDefault, .restart,
            "a file holding the PostgreSQL password, read at start, for a URL that holds none; empty: `$PGPASSWORD`"),
        Setting(
            "cluster.name", \.storage.clusterName, .clusterName, .restart,
            "keeps clusters apart in one PostgreSQL database: each has the schema `reqd_NAME`"),
        Setting(
            "cluster.lease", \.storage.leaseNanos, .duration(minimum: 1_000_000_000), .restart,
            "how long a daemon's hold on its PostgreSQL jobs lasts without a heartbeat (renewed every third of it); when it expires, other daemons take the jobs over"),
        Setting(
            "cluster.horizon", \.storage.horizonNanos, .duration(minimum: 1_000_000_000), .restart,
            "how far ahead a daemon claims the free jobs of a daemon that died or left: those due later stay in the database until then (at least the lease)"),
        Setting(
            "cluster.commit_delay", \.storage.commitDelayNanos, .duration(allowZero: true, maximum: 1_000_000_000), .restart,
            "how long a change that no reply waits for (a job's end, its attempts, a poll's counters) may wait on PostgreSQL to share a commit with other work; fewer, larger commits cost the server less. `0`: every change commits at once"),
        Setting("jobs.max_active", \.scheduler.maxActiveJobs, .integer(1...100_000_000), .reload, "beyond it, `too_many_jobs`"),
        Setting(
            "jobs.retention", \.scheduler.retentionNanos, .duration(allowZero: true), .reload,
            "how long ended jobs stay visible to `status`, `list`, `wait`"),
        Setting("jobs.max_retained", \.scheduler.maxRetainedJobs, .integer(0...100_000_000), .reload, "most ended jobs kept, and apart from them most dead letters"),
        Setting("countdown.default_tick", \.scheduler.defaultTickNanos, .duration(), .reload, "tick when none is given"),
        Setting("countdown.min_tick", \.scheduler.minTickNanos, .duration(), .reload, "smallest tick accepted"),
        Setting("countdown.max_duration", \.scheduler.maxDurationNanos, .duration(), .reload, "longer is `bad_duration`: a countdown, and every other duration a request gives (intervals, time limits, ticks, backoffs, dedupe windows, delays)"),
        Setting(
            "http.connect_timeout", \.http.connectTimeoutNanos, .duration(), .restart, "how long a connection may take to open"),
        Setting(
            "http.request_timeout", \.requestTimeoutNanos, .duration(), .restart,
            "an attempt or poll left unanswered this long is aborted and counts as failed"),
        Setting(
            "http.max_response_bytes", \.http.maxResponseBytes, .integer(1_024...(1 << 31)), .restart,
            "a larger response body, counted once decoded (gzip, deflate), fails the request"),
        Setting(
            "http.max_request_bytes", \.scheduler.maxRequestBodyBytes, .integer(0...(64 << 20)), .reload,
            "a larger request body is `bad_field`; a group's `on_complete` report is cut to fit it (PROTOCOL.md, `register-group`)"),
        Setting(
            "http.max_redirects", \.http.maxRedirects, .integer(0...50), .restart,
            "redirects followed; `0` makes the 3xx the answer"),
        Setting(
            "http.max_connections_per_host", \.maxConnectionsPerHost, .integer(1...Int64(HTTPSettings.maxConnectionsPerHostLimit)), .reload,
            "connections per host, and every target's default `concurrency`; more requests wait as jobs, in turn across users"),
        Setting("http.threads", \.http.threads, .integer(1...64), .restart, "the HTTP client's event-loop threads"),
        Setting(
            "http.ca_file", \.scheduler.targets.defaultTLS.caFile, .absolutePathOrDefault, .reload,
            "a PEM bundle of CA certificates every target trusts besides the system's roots (a target table's `ca_file` replaces it); read at start and at reload"),
        Setting(
            "http.allow", \.scheduler.targetPolicy.allow, .list { entries throws(SchedulerError) in try TargetPolicy.check(allow: entries, deny: []) },
            .restart, "ranges and host names (`*.example.com`) excepted from `http.deny`; the most specific entry wins"),
        Setting(
            "http.deny", \.scheduler.targetPolicy.deny, .list { entries throws(SchedulerError) in try TargetPolicy.check(allow: [], deny: entries) },
            .restart, "CIDR ranges requests may not connect to, checked on every address a name resolves to; refused: `denied_target`"),
        Setting("poll.min_every", \.scheduler.minPollEveryNanos, .duration(), .reload, "the smallest `--every`"),
        Setting(
            "poll.max_failures", \.scheduler.defaultMaxFailures, .integer(1...1_000_000), .reload,
            "failed polls in a row that end a poll job naming no `--max-failures`"),
        Setting(
            "poll.max_backoff", \.scheduler.maxPollBackoffNanos, .duration(), .reload,
            "the longest wait between failed polls"),
        Setting(
            "poll.result_body_bytes", \.scheduler.resultBodyBytes, .integer(0...(1 << 20)), .reload,
            "how much of a final answer's body a poll or request job keeps"),
        Setting(
            "poll.attempts_write_interval", \.scheduler.pollAttemptsWriteNanos, .duration(allowZero: true), .reload,
            "how long a running durable poll's attempt log may go unwritten: a crash loses at most this much of it; `0` writes every answer"),
        Setting(
            "request.max_attempts", \.scheduler.defaultMaxAttempts, .integer(1...1_000), .reload,
            "attempts of a request job naming no `--max-attempts`"),
        Setting(
            "request.backoff_min", \.scheduler.defaultBackoffMinNanos, .duration(), .reload,
            "the backoff bound before a second attempt (full jitter, doubling)"),
        Setting("request.backoff_max", \.scheduler.defaultBackoffMaxNanos, .duration(), .reload, "the largest backoff bound"),
        Setting(
            "request.max_retry_after", \.scheduler.maxRetryAfterNanos, .duration(allowZero: true), .reload,
            "the longest wait a `Retry-After` header may ask for"),
        Setting(
            "request.dead_retention", \.scheduler.deadRetentionNanos, .duration(), .reload,
            "how long a dead-lettered request job is kept for `list --state dead` and `retry`; at most `limits.retained_jobs_per_user` of one uid's and `jobs.max_retained` in all are kept, apart from other ended jobs, the first created going first"),
        Setting(
            "request.probe_max", \.scheduler.probeMaxNanos, .duration(), .reload,
            "the longest wait between probes of a target the network cannot reach (netlink changes probe at once)"),
        Setting(
            "request.catchup_rate", \.scheduler.catchupRate, .integer(0...1_000_000), .reload,
            "overdue HTTP work (after a restart, a suspend or an outage) starts at most this many times a second per target, the first at once; 0: all at once"),
        Setting(
            "request.dedupe_window", \.scheduler.dedupeWindowNanos, .duration(allowZero: true), .reload,
            "how long an identical `submit` returns the first job; `\"0s\"` turns dedupe off"),
        Setting(
            "limits.active_jobs_per_user", \.scheduler.userLimits.activeJobs, .integer(1...100_000_000), .reload,
            "active jobs one uid may hold; beyond it, `quota_exceeded`"),
        Setting(
            "limits.connections_per_user", \.scheduler.userLimits.connections, .integer(1...1_000_000), .reload,
            "connections one uid may have open; the next one gets `quota_exceeded` and is closed"),
        Setting(
            "limits.requests_in_flight_per_user", \.scheduler.userLimits.requestsInFlight, .integer(1...1_000_000), .reload,
            "HTTP requests one uid may have on the wire; beyond it, jobs wait their turn (no attempt spent)"),
        Setting(
            "limits.retained_jobs_per_user", \.scheduler.userLimits.retainedJobs, .integer(0...100_000_000), .reload,
            "ended jobs kept for one uid; beyond it, its oldest are forgotten. Its dead letters are kept apart, as many at most"),
        Setting(
            "limits.apply_to_root", \.scheduler.userLimits.applyToRoot, .boolean, .reload,
            "whether root is held to the `limits.*` too"),
        Setting(
            "metrics.listen", \.metricsListen, .metricsListen, .restart,
            "where to serve the metrics in the Prometheus text format: empty for nowhere (they stay on the socket's `metrics` operation), a Unix socket path (taking `socket.mode` and `socket.group`), or `HOST:PORT` on loopback such as `127.0.0.1:9464`"),
    ]

    /// The settings by key.
    static let settingsByKey = Dictionary(uniqueKeysWithValues: settings.map { ($0.key, $0) })
}
