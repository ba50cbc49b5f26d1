/// A poll job's settings and counters, as `status JOB_ID` shows them.
public struct PollInfo: Codable, Sendable, Hashable {
    public var url: String
    public var method: String
    /// The names of the request headers; their values are never shown.
    public var headerNames: [String]
    public var everyMs: Int64
    public var until: String
    /// The progress pointer, when one was given.
    public var progressPointer: String?
    public var timeoutMs: Int64?
    /// When the total time limit runs out, in wall-clock time.
    public var deadline: WallTime?
    public var maxPolls: Int?
    public var maxFailures: Int
    /// Polls answered so far (failures included).
    public var polls: Int
    /// Failed polls in a row; one good answer resets it.
    public var failures: Int
    /// The highest progress value seen.
    public var progress: Double?
    /// The HTTP status of the last answer.
    public var lastStatus: Int?
    /// Why the last failed poll failed.
    public var lastError: String?
    /// Whether a request is out now.
    public var inFlight: Bool
    /// When the next request starts, in wall-clock time, while none is out.
    public var nextPollAt: WallTime?

    public init(
        url: String, method: String, headerNames: [String], everyMs: Int64, until: String, progressPointer: String?,
        timeoutMs: Int64?, deadline: WallTime?, maxPolls: Int?, maxFailures: Int, polls: Int, failures: Int,
        progress: Double?, lastStatus: Int?, lastError: String?, inFlight: Bool, nextPollAt: WallTime?
    ) {
        self.url = url
        self.method = method
        self.headerNames = headerNames
        self.everyMs = everyMs
        self.until = until
        self.progressPointer = progressPointer
        self.timeoutMs = timeoutMs
        self.deadline = deadline
        self.maxPolls = maxPolls
        self.maxFailures = maxFailures
        self.polls = polls
        self.failures = failures
        self.progress = progress
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.inFlight = inFlight
        self.nextPollAt = nextPollAt
    }

    enum CodingKeys: String, CodingKey {
        case url, method
        case headerNames = "header_names"
        case everyMs = "every_ms"
        case until
        case progressPointer = "progress_pointer"
        case timeoutMs = "timeout_ms"
        case deadline
        case maxPolls = "max_polls"
        case maxFailures = "max_failures"
        case polls, failures, progress
        case lastStatus = "last_status"
        case lastError = "last_error"
        case inFlight = "in_flight"
        case nextPollAt = "next_poll_at"
    }
}
