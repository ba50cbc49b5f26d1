/// The limits and defaults the scheduler applies. The daemon builds it from its configuration file.
public struct SchedulerConfiguration: Sendable, Hashable {
    /// The tick of a countdown that names none.
    public var defaultTickNanos: Int64 = 1_000_000_000
    /// The smallest tick accepted.
    public var minTickNanos: Int64 = 10_000_000
    /// The longest countdown (or poll time limit) accepted; anything longer is an absurd duration.
    public var maxDurationNanos: Int64 = 3_650 * 86_400 * 1_000_000_000
    /// The most jobs (active and waiting for their commit) held at once.
    public var maxActiveJobs: Int = 5_000_000
    /// How long ended jobs stay visible to `status`, `list` and `wait`.
    public var retentionNanos: Int64 = 3_600 * 1_000_000_000
    /// The most ended jobs kept; the oldest go first beyond it.
    public var maxRetainedJobs: Int = 100_000
    /// The longest key or scope, in bytes.
    public var maxNameBytes: Int = 256
    /// The most jobs one `list` page holds.
    public var maxListLimit: Int = 1_000
    /// The jobs a `list` page holds when the request gives no `limit`.
    public var defaultListLimit: Int = 100
    /// The most bytes of job views one `list` page holds (the daemon sets half of
    /// `socket.max_pending_bytes`): a page that would pass it ends early, with `next`.
    public var maxReplyBytes: Int = 4 << 20
    /// The smallest poll interval accepted.
    public var minPollEveryNanos: Int64 = 100_000_000
    /// Failed polls in a row that end a poll job whose registration names no limit.
    public var defaultMaxFailures: Int = 5
    /// The longest wait between failed polls (never shorter than the job's interval).
    public var maxPollBackoffNanos: Int64 = 300 * 1_000_000_000
    /// How long a request may go unanswered before it is cancelled and counted as a failure.
    ///
    /// The scheduler keeps this timeout in its own heap, so thousands of requests waiting for a
    /// pooled connection cost no timers in the HTTP client.
    public var requestTimeoutNanos: Int64 = 30_000_000_000
    /// How much of a final answer's body a job keeps for `status`.
    public var resultBodyBytes: Int = 4096
    /// How long a running durable poll's attempts may stay in memory alone: an answer after which
    /// the next poll would start this long or longer after the first attempt since the last write
    /// writes the log. The store has the rest at the poll's end and at a clean stop; a crash loses
    /// at most this much of the log and one request's time (the counters are written at every
    /// answer). 0 writes every answer's attempt.
    public var pollAttemptsWriteNanos: Int64 = 60_000_000_000
    /// The largest request body a job may carry.
    public var maxRequestBodyBytes: Int = 1 << 20
    /// Attempts a request job makes at most when its registration names no limit.
    public var defaultMaxAttempts: Int = 8
    /// The backoff bound before a request job's second attempt, unless the job names one.
    public var defaultBackoffMinNanos: Int64 = 1_000_000_000
    /// The largest backoff bound between two attempts, unless the job names one.
    public var defaultBackoffMaxNanos: Int64 = 600 * 1_000_000_000
    /// The longest wait a `Retry-After` header may ask for.
    public var maxRetryAfterNanos: Int64 = 600 * 1_000_000_000
    /// How long a dead-lettered request job is kept for `list --state dead` and `retry`.
    public var deadRetentionNanos: Int64 = 7 * 86_400 * 1_000_000_000
    /// The longest wait between two probes of an unreachable target; the first comes after 1 s.
    public var probeMaxNanos: Int64 = 30 * 1_000_000_000
    /// The most overdue HTTP starts per second per target (`CatchupPacer`); 0 sends them all at once.
    public var catchupRate: Int = 50

    /// The time between two catch-up starts to one target at `catchupRate`; 0 when pacing is off.
    var catchupIntervalNanos: Int64 { catchupRate > 0 ? 1_000_000_000 / Int64(catchupRate) : 0 }
    /// What each uid may hold at once.
    public var userLimits = UserLimits()
    /// Rate and concurrency limits per target (`[targets."HOST"]`).
    public var targets = TargetRules()
    /// Which addresses requests may go to (`http.allow`, `http.deny`).
    public var targetPolicy = TargetPolicy()
    /// How long an identical `submit` returns the existing job, counted from its registration.
    public var dedupeWindowNanos: Int64 = 3_000_000_000
    /// Other daemons share the durable store: a durable job this daemon does not hold may be
    /// held by one of them, so `status`, `wait`, `watch` and a `cancel` of a job or key it does not
    /// hold ask the store for it, and `list`, a scope's `cancel` and `retry` always do.
    public var clustered = false
    /// The uid and pid of the daemon, shown in the summary.
    public var daemonPID: Int32? = nil
    /// The connection cap the daemon applies (`socket.max_connections`, resolved), shown in the summary.
    public var maxConnections: Int? = nil
    /// Timer entries (expiries, elapses, retries, polls) a turn of the timer alone handles at most.
    /// When more are due, the next share comes in a turn of its own at once: every entry is
    /// handled with a clock reading at most this many entries old, so its `late_by` is the truth.
    /// A turn that also carries requests fires every due entry before them (deadlines first).
    public var timerEntriesPerTurn: Int = 256

    /// The defaults.
    public init() {}
}
