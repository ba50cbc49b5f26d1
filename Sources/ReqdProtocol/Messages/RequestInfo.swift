/// A request job's request, policy and attempts, as `status JOB_ID` shows them.
public struct RequestInfo: Codable, Sendable, Hashable {
    public var url: String
    public var method: String
    /// The names of the request headers; their values are never shown.
    public var headerNames: [String]
    public var maxAttempts: Int
    public var backoffMinMs: Int64
    public var backoffMaxMs: Int64
    /// Attempts started so far.
    public var attempts: Int
    /// The HTTP status of the last answer.
    public var lastStatus: Int?
    /// Why the last failed attempt failed.
    public var lastError: String?
    /// Whether an attempt is out now.
    public var inFlight: Bool
    /// When the next attempt starts, in wall-clock time, while one is planned.
    public var nextAttemptAt: WallTime?
    /// True while the job waits for its unreachable target to answer again; absent otherwise.
    public var held: Bool?
    /// The countdown whose expiry started this job, for an `on_expire` request.
    public var parent: String?

    public init(
        url: String, method: String, headerNames: [String], maxAttempts: Int, backoffMinMs: Int64, backoffMaxMs: Int64,
        attempts: Int, lastStatus: Int?, lastError: String?, inFlight: Bool, nextAttemptAt: WallTime?, parent: String?
    ) {
        self.url = url
        self.method = method
        self.headerNames = headerNames
        self.maxAttempts = maxAttempts
        self.backoffMinMs = backoffMinMs
        self.backoffMaxMs = backoffMaxMs
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.inFlight = inFlight
        self.nextAttemptAt = nextAttemptAt
        self.parent = parent
    }

    enum CodingKeys: String, CodingKey {
        case url, method
        case headerNames = "header_names"
        case maxAttempts = "max_attempts"
        case backoffMinMs = "backoff_min_ms"
        case backoffMaxMs = "backoff_max_ms"
        case attempts
        case lastStatus = "last_status"
        case lastError = "last_error"
        case inFlight = "in_flight"
        case nextAttemptAt = "next_attempt_at"
        case held
        case parent
    }
}
