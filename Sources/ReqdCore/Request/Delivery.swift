/// A request job's request and attempts: sent until an attempt is answered, or attempts run out.
///
/// Transport errors, an attempt left unanswered past the request timeout, 5xx and 429 are
/// retried after a backoff with full jitter: a uniform wait between 0 and `backoffMin` doubled
/// once per earlier failure, capped at `backoffMax`. Any other answer ends the job: below 400 it
/// succeeded, otherwise it failed at once.
public struct Delivery: Sendable, Hashable {
    public var request: HTTPRequestSpec
    public var maxAttempts: Int
    /// The backoff bound before the second attempt, in nanoseconds.
    public var backoffMin: Int64
    /// The largest backoff bound, in nanoseconds.
    public var backoffMax: Int64
    /// The countdown whose expiry started this job, for an `on_expire` request.
    public var parent: JobID?

    /// Attempts started so far; the current one's number.
    public var attempts: UInt32 = 0
    /// Whether an attempt is out now.
    public var inFlight = false
    /// When the attempt out now is given up as unanswered.
    public var requestDeadline: Instant?
    /// When the next attempt starts, while none is out.
    public var nextAttempt: Instant
    public var lastStatus: Int?
    public var lastError: String?

    /// Creates a delivery whose first attempt starts at `firstAttempt`.
    public init(
        request: HTTPRequestSpec, maxAttempts: Int, backoffMin: Int64, backoffMax: Int64, parent: JobID?,
        firstAttempt: Instant
    ) {
        self.request = request
        self.maxAttempts = maxAttempts
        self.backoffMin = backoffMin
        self.backoffMax = backoffMax
        self.parent = parent
        self.nextAttempt = firstAttempt
    }

    /// The next instant the delivery needs the timer: the request timeout while an attempt is out,
    /// else its next attempt.
    public var nextFire: Instant { inFlight ? (requestDeadline ?? nextAttempt) : nextAttempt }

    /// Whether an answer with this status is worth another attempt.
    public static func retries(status: Int) -> Bool { status >= 500 || status == 429 }

    /// The wait before the next attempt after `attempts` failed ones: full jitter, `random` in [0, 1).
    public func backoff(random: Double) -> Int64 {
        let doublings = max(0, Int(attempts) - 1)
        let ceiling: Int64
        if doublings >= 62 || backoffMin > backoffMax >> doublings {
            ceiling = backoffMax
        } else {
            ceiling = backoffMin << doublings
        }
        return Int64(Double(ceiling) * random)
    }

    /// Where an attempt's end leaves a delivery.
    public enum Step: Sendable, Hashable {
        /// Answered below 400.
        case succeeded
        /// Failed in a way worth another attempt, which `nextAttempt` plans.
        case retry(String)
        /// Failed for good: a 4xx other than 429, or the last attempt failed (`exhausted`).
        case failed(String, exhausted: Bool)
    }

    /// Records the end of the attempt out now and says what follows; `random` in [0, 1) draws the jitter.
    public mutating func finish(_ outcome: HTTPOutcome, at now: Instant, random: Double) -> (step: Step, answer: HTTPAnswer?) {
        inFlight = false
        requestDeadline = nil
        var answer: HTTPAnswer?
        let failure: String
        let retryable: Bool
        switch outcome {
        case .failure(let why):
            (failure, retryable) = (why, true)
        case .response(let response):
            answer = response
            lastStatus = response.status
            guard response.status >= 400 else { return (.succeeded, answer) }
            (failure, retryable) = ("the server answered \(response.status)", Self.retries(status: response.status))
        }
        lastError = failure
        guard retryable else { return (.failed(failure, exhausted: false), answer) }
        guard Int(attempts) < maxAttempts else {
            let why = attempts > 1 ? "\(attempts) attempts failed; the last: \(failure)" : failure
            return (.failed(why, exhausted: true), answer)
        }
        nextAttempt = now.advanced(by: backoff(random: random))
        return (.retry(failure), answer)
    }

    /// Starts the next attempt: counts it and sets when it is given up as unanswered.
    public mutating func start(at now: Instant, timeout: Int64) {
        attempts += 1
        inFlight = true
        requestDeadline = now.advanced(by: timeout)
    }
}
