/// A poll job's settings and progress: one request at a time until the condition holds.
///
/// The next request starts at `max(last start + every, last answer)`: never two out at once,
/// never an idle gap after a slow answer, never a burst after fast ones. Failed polls back off
/// exponentially from `every`, and `maxFailures` of them in a row end the job.
public struct Poll: Sendable, Hashable {
    public var request: HTTPRequestSpec
    /// The least time between two request starts, in nanoseconds.
    public var every: Int64
    public var condition: PollCondition
    public var progressPointer: JSONPointer?
    /// The total time limit as given, in nanoseconds.
    public var timeout: Int64?
    /// When the total time limit runs out, on the boot-time clock.
    public var deadline: Instant?
    public var maxPolls: Int?
    public var maxFailures: Int

    /// Requests started so far; the current one's attempt number.
    public var attempts: UInt32 = 0
    /// Polls answered so far, failures included.
    public var polls: Int = 0
    /// Failed polls in a row.
    public var failures: Int = 0
    /// When the latest request started.
    public var lastStart: Instant?
    /// When the request out now is given up as unanswered.
    public var requestDeadline: Instant?
    /// When the next request starts, while none is out.
    public var nextStart: Instant
    /// The highest progress value reported.
    public var progress: Double?
    public var lastStatus: Int?
    public var lastError: String?

    /// Creates a poll whose first request starts at `firstStart`.
    public init(
        request: HTTPRequestSpec, every: Int64, condition: PollCondition, progressPointer: JSONPointer?,
        timeout: Int64?, deadline: Instant?, maxPolls: Int?, maxFailures: Int, firstStart: Instant
    ) {
        self.request = request
        self.every = every
        self.condition = condition
        self.progressPointer = progressPointer
        self.timeout = timeout
        self.deadline = deadline
        self.maxPolls = maxPolls
        self.maxFailures = maxFailures
        self.nextStart = firstStart
    }

    /// Whether a request is out now.
    public var inFlight: Bool { Int(attempts) > polls }

    /// Whether answers must be parsed as JSON: for the condition or for progress.
    public var wantsJSON: Bool { condition.needsJSON || progressPointer != nil }

    /// The next instant the poll needs the timer: its next start while idle, the request timeout
    /// while a request is out, and its time limit.
    public var nextFire: Instant? {
        let own = inFlight ? requestDeadline : nextStart
        switch (own, deadline) {
        case (let own?, let deadline?): return min(own, deadline)
        case (let own?, nil): return own
        case (nil, let deadline): return deadline
        }
    }

    /// The wait after a failed poll: `every`, doubled for each further failure in a row, capped.
    public func backoff(cap: Int64) -> Int64 {
        let limit = max(every, cap)
        let doublings = max(0, failures - 1)
        guard doublings < 62, every <= limit >> doublings else { return limit }
        return every << doublings
    }
}
