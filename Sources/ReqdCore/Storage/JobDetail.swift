import ReqdProtocol

/// The kind-specific part of a stored job that has no column of its own; the store keeps it as JSON.
public struct JobDetail: Sendable, Hashable, Codable {
    /// A poll job's settings and counters.
    public var poll: PollRecord?
    /// The answer that ended the job.
    public var result: HTTPResult?
    /// Why the job failed or timed out.
    public var error: String?

    /// Creates a `JobDetail` from its parts.
    public init(poll: PollRecord? = nil, result: HTTPResult? = nil, error: String? = nil) {
        self.poll = poll
        self.result = result
        self.error = error
    }

    /// Whether there is nothing to store.
    public var isEmpty: Bool { poll == nil && result == nil && error == nil }
}

/// A poll job as stored: its settings, its counters, and its times on the wall clock.
public struct PollRecord: Sendable, Hashable, Codable {
    public var request: HTTPRequestSpec
    public var everyNanos: Int64
    public var condition: String
    public var progressPointer: String?
    public var timeoutNanos: Int64?
    public var deadline: WallTime?
    public var maxPolls: Int?
    public var maxFailures: Int
    public var polls: Int
    public var failures: Int
    public var progress: Double?
    public var lastStatus: Int?
    public var lastError: String?
    /// When the last answered request started.
    public var lastStart: WallTime?

    enum CodingKeys: String, CodingKey {
        case request
        case everyNanos = "every_ns"
        case condition
        case progressPointer = "progress_pointer"
        case timeoutNanos = "timeout_ns"
        case deadline
        case maxPolls = "max_polls"
        case maxFailures = "max_failures"
        case polls, failures, progress
        case lastStatus = "last_status"
        case lastError = "last_error"
        case lastStart = "last_start"
    }
}

extension PollRecord {
    /// The stored form of a poll, with its boot-time instants projected onto the wall clock.
    init(_ poll: Poll, at now: ClockReading) {
        self.init(
            request: poll.request, everyNanos: poll.every, condition: poll.condition.source,
            progressPointer: poll.progressPointer?.description, timeoutNanos: poll.timeout,
            deadline: poll.deadline.map(now.wall(at:)), maxPolls: poll.maxPolls, maxFailures: poll.maxFailures,
            polls: poll.polls, failures: poll.failures, progress: poll.progress, lastStatus: poll.lastStatus,
            lastError: poll.lastError, lastStart: poll.inFlight ? nil : poll.lastStart.map(now.wall(at:)))
    }

    /// The poll as it resumes: counters kept, and the next request where the interval (or the
    /// failure backoff) puts it, or now when that has passed. A request that was out when the
    /// daemon stopped is not counted; it is simply sent again.
    func resumed(at now: ClockReading, maxBackoff: Int64) -> Poll? {
        guard let condition = try? PollCondition(parsing: condition), everyNanos > 0, maxFailures > 0 else { return nil }
        var poll = Poll(
            request: request, every: everyNanos, condition: condition,
            progressPointer: progressPointer.flatMap(JSONPointer.init), timeout: timeoutNanos,
            deadline: deadline.map(now.instant(at:)), maxPolls: maxPolls, maxFailures: maxFailures,
            firstStart: now.instant)
        poll.polls = polls
        poll.attempts = UInt32(clamping: polls)
        poll.failures = failures
        poll.progress = progress
        poll.lastStatus = lastStatus
        poll.lastError = lastError
        if let lastStart {
            let start = now.instant(at: lastStart)
            poll.lastStart = start
            let wait = failures > 0 ? poll.backoff(cap: maxBackoff) : everyNanos
            poll.nextStart = max(start.advanced(by: wait), now.instant)
        }
        return poll
    }
}
