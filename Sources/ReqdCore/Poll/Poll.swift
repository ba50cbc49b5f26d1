import ReqdProtocol

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
    @Packed public var timeout: Int64?
    /// When the total time limit runs out, on the boot-time clock.
    @Packed public var deadline: Instant?
    @Packed public var maxPolls: Int?
    public var maxFailures: Int

    /// Requests started so far; the current one's attempt number.
    public var attempts: UInt32 = 0
    /// Polls answered so far, failures included.
    public var polls: Int = 0
    /// Failed polls in a row.
    public var failures: Int = 0
    /// When the latest request started.
    @Packed public var lastStart: Instant?
    /// When the request out now is given up as unanswered.
    @Packed public var requestDeadline: Instant?
    /// When the next request starts, while none is out.
    public var nextStart: Instant
    /// The highest progress value reported.
    @Packed public var progress: Double?
    @Packed public var lastStatus: Int?
    public var lastError: String?
    /// An ephemeral poll's last requests (`AttemptLog`).
    public var log = AttemptLog()

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

    /// Where an answer (or a failure) leaves the poll.
    public enum Step: Sendable, Hashable {
        /// The poll goes on; the next request is planned.
        case next
        /// The condition held.
        case succeeded
        /// Too many polls in a row failed; the message says so.
        case failed(String)
        /// The poll ran out of polls; the message says so.
        case timedOut(String)
    }

    /// What one finished request did to the poll.
    public struct Finished: Sendable, Hashable {
        public var step: Step
        /// The answer, when one arrived.
        public var answer: HTTPAnswer?
        /// Why the request counts as failed, when it does.
        public var failure: String?
        /// Whether the progress moved forward.
        public var advanced: Bool
        /// A progress value lower than the one already reached, which was dropped.
        public var staleProgress: Double?
    }

    /// Records the end of the request out now and says what follows: the next request is planned
    /// at `max(last start + every, now)`, or at the failure backoff; progress only moves forward.
    public mutating func finish(_ outcome: HTTPOutcome, at now: Instant, maxBackoff: Int64) -> Finished {
        polls += 1
        requestDeadline = nil
        let started = lastStart ?? now
        var finished = Finished(step: .next, answer: nil, failure: nil, advanced: false, staleProgress: nil)
        switch outcome {
        case .failure(let message), .rejected(let message), .unreachable(let message), .denied(let message):
            finished.failure = message
        case .response(let response):
            finished.answer = response
            lastStatus = response.status
            if response.status >= 500 {
                finished.failure = "the server answered \(response.status)"
            } else if response.status == 429 {
                finished.failure = "the server answered 429 (too many requests)"
            } else if condition.needsJSON, response.json == nil {
                finished.failure = "the answer's body is not JSON"
            }
        }
        var satisfied = false
        if let failure = finished.failure {
            failures += 1
            lastError = failure
            nextStart = max(started.advanced(by: backoff(cap: maxBackoff)), now)
        } else if let answer = finished.answer {
            failures = 0
            if let progressPointer, let json = answer.json, case .number(let value)? = progressPointer.resolve(in: json) {
                if let current = progress, value < current {
                    finished.staleProgress = value
                } else if progress != value {
                    progress = value
                    finished.advanced = true
                }
            }
            satisfied = condition.holds(status: answer.status, body: answer.json)
            nextStart = max(started.advanced(by: every), now)
        }
        if satisfied {
            finished.step = .succeeded
        } else if case .denied(let message) = outcome {
            finished.step = .failed(message)
        } else if failures >= maxFailures {
            finished.step = .failed("\(failures) polls in a row failed; the last: \(finished.failure ?? "unknown")")
        } else if let maxPolls, polls >= maxPolls {
            finished.step = .timedOut("the condition did not hold within \(maxPolls) polls")
        }
        return finished
    }

    /// Starts the next request when it is due and the time limit has not run out; returns its attempt number.
    mutating func startIfDue(at now: Instant, timeout: Int64) -> UInt32? {
        guard !inFlight, nextStart <= now, deadline.map({ $0 > now }) ?? true else { return nil }
        attempts += 1
        lastStart = now
        requestDeadline = now.advanced(by: timeout)
        return attempts
    }
}
