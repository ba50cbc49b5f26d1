import ReqdProtocol

/// The kind-specific part of a stored job that has no column of its own; the store keeps it as JSON.
public struct JobDetail: Sendable, Hashable, Codable {
    /// A poll job's settings and counters.
    public var poll: PollRecord?
    /// A request job's settings and attempts.
    public var request: DeliveryRecord?
    /// A group's members and where each is.
    public var group: GroupRecord?
    /// A countdown's `on_expire` request.
    public var onExpire: DeliverySettings?
    /// The request job a countdown's expiry started.
    public var spawned: String?
    /// The answer that ended the job.
    public var result: HTTPResult?
    /// Why the job failed or timed out.
    public var error: String?

    public init(
        poll: PollRecord? = nil, request: DeliveryRecord? = nil, group: GroupRecord? = nil, onExpire: DeliverySettings? = nil, spawned: String? = nil,
        result: HTTPResult? = nil, error: String? = nil
    ) {
        self.poll = poll
        self.request = request
        self.group = group
        self.onExpire = onExpire
        self.spawned = spawned
        self.result = result
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case poll, request, group
        case onExpire = "on_expire"
        case spawned, result, error
    }

    /// Whether there is nothing to store.
    public var isEmpty: Bool {
        poll == nil && request == nil && group == nil && onExpire == nil && spawned == nil && result == nil && error == nil
    }
}

/// A poll job as stored: its settings, written once, and its counters, updated after every answer.
public typealias PollRecord = WorkRecord<PollSettings, PollCounters>

/// What a stored poll was registered with, and its time limit on the wall clock.
public struct PollSettings: Sendable, Hashable, Codable {
    public var request: HTTPRequestSpec
    public var everyNanos: Int64
    public var condition: String
    public var progressPointer: String?
    public var timeoutNanos: Int64?
    public var deadline: WallTime?
    public var maxPolls: Int?
    public var maxFailures: Int

    enum CodingKeys: String, CodingKey {
        case request
        case everyNanos = "every_ns"
        case condition
        case progressPointer = "progress_pointer"
        case timeoutNanos = "timeout_ns"
        case deadline
        case maxPolls = "max_polls"
        case maxFailures = "max_failures"
    }
}

extension WorkRecord where Settings == PollSettings, Counters == PollCounters {
    /// The stored form of a poll, with its boot-time instants projected onto the wall clock.
    init(_ poll: Poll, at now: ClockReading) {
        self.init(
            settings: PollSettings(
                request: poll.request, everyNanos: poll.every, condition: poll.condition.source,
                progressPointer: poll.progressPointer?.description, timeoutNanos: poll.timeout,
                deadline: poll.deadline.map(now.wall(at:)), maxPolls: poll.maxPolls, maxFailures: poll.maxFailures),
            counters: PollCounters(poll, at: now))
    }

    /// The poll as it resumes: counters kept, and the next request where the interval (or the
    /// failure backoff) puts it, or now when that has passed. A request that was out when the
    /// daemon stopped is not counted; it is simply sent again.
    func resumed(at now: ClockReading, maxBackoff: Int64) -> Poll? {
        guard let condition = try? PollCondition(parsing: settings.condition), settings.everyNanos > 0, settings.maxFailures > 0
        else { return nil }
        var poll = Poll(
            request: settings.request, every: settings.everyNanos, condition: condition,
            progressPointer: settings.progressPointer.flatMap(JSONPointer.init), timeout: settings.timeoutNanos,
            deadline: settings.deadline.map(now.instant(at:)), maxPolls: settings.maxPolls, maxFailures: settings.maxFailures,
            firstStart: now.instant)
        poll.polls = counters.polls
        poll.attempts = UInt32(clamping: counters.polls)
        poll.failures = counters.failures
        poll.progress = counters.progress
        poll.lastStatus = counters.lastStatus
        poll.lastError = counters.lastError
        if let lastStart = counters.lastStart {
            let start = now.instant(at: lastStart)
            poll.lastStart = start
            let wait = counters.failures > 0 ? poll.backoff(cap: maxBackoff) : settings.everyNanos
            poll.nextStart = max(start.advanced(by: wait), now.instant)
        }
        return poll
    }
}
