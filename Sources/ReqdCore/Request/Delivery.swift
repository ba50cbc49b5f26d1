/// A request job's request and attempts: sent until an attempt is answered, or attempts run out.
///
/// Transport errors, an attempt left unanswered past the request timeout, and the statuses of
/// `retryOn` (408, 425, 429 and 5xx unless the job says otherwise) are retried after a backoff
/// with full jitter: a uniform wait between 0 and `backoffMin` doubled once per earlier failure,
/// capped at `backoffMax`, or longer when the answer's `Retry-After` asks for it (up to
/// `maxRetryAfter`). Any other answer ends the job: below 400 it succeeded, otherwise it failed.
public struct Delivery: Sendable, Hashable {
    public var request: HTTPRequestSpec
    public var maxAttempts: Int
    /// The backoff bound before the second attempt, in nanoseconds.
    public var backoffMin: Int64
    /// The largest backoff bound, in nanoseconds.
    public var backoffMax: Int64
    /// The countdown whose expiry started this job, for an `on_expire` request.
    public var parent: JobID?
    /// The statuses worth another attempt.
    public var retryOn = RetryStatuses.standard
    /// Requests that report the outcome, as request jobs of their own.
    public var onSuccess: Box<Delivery>?
    public var onFailure: Box<Delivery>?

    /// Attempts started so far; the current one's number.
    public var attempts: UInt32 = 0
    /// Whether an attempt is out now.
    public var inFlight = false
    /// Whether the job waits for its target's network to come back (never stored: a restart retries).
    public var held = false
    /// Started by an expiry that fired more than a second late (after downtime): its first attempt
    /// waits for a catch-up slot (`CatchupPacer`) however it comes to start.
    public var catchUp = false
    /// When the attempt out now is given up as unanswered.
    @Packed public var requestDeadline: Instant?
    /// When the next attempt starts, while none is out; while one is out (and after the last),
    /// when that one was sent, for its attempt log.
    public var nextAttempt: Instant
    @Packed public var lastStatus: Int?
    public var lastError: String?
    /// An ephemeral request job's last attempts (`AttemptLog`); a group member keeps none.
    public var log = AttemptLog()

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

    /// The server the request goes to (scheme, host and port): what an unreachable network holds.
    public var origin: String { String(RequestURL.origin(request.url)) }

    /// The next instant the delivery needs the timer: the request timeout while an attempt is out,
    /// else its next attempt.
    public var nextFire: Instant { inFlight ? (requestDeadline ?? nextAttempt) : nextAttempt }


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
        /// Failed for good: a 4xx other than 429, the target policy refused it, or the last attempt
        /// failed (`exhausted`).
        case failed(String, exhausted: Bool)
        /// The network to the target is unreachable; the attempt did not count.
        case held(String)
    }

    /// Records the end of the attempt out now and says what follows; `random` in [0, 1) draws the jitter.
    ///
    /// With `holding`, an unreachable network gives back the attempt and asks to be `held`;
    /// without it (group members), it is an ordinary failure. `maxRetryAfter` is the longest wait
    /// a `Retry-After` header may ask for, as configured now (`request.max_retry_after`).
    public mutating func finish(
        _ outcome: HTTPOutcome, at now: ClockReading, random: Double, holding: Bool = false, maxRetryAfter: Int64 = 0
    ) -> (step: Step, answer: HTTPAnswer?) {
        inFlight = false
        requestDeadline = nil
        var answer: HTTPAnswer?
        let failure: String
        let retryable: Bool
        switch outcome {
        case .unreachable(let why) where holding:
            attempts -= 1
            lastError = why
            return (.held(why), nil)
        case .failure(let why), .rejected(let why), .unreachable(let why):
            (failure, retryable) = (why, true)
            lastStatus = nil
        case .denied(let why):
            (failure, retryable) = (why, false)
            lastStatus = nil
        case .response(let response):
            answer = response
            lastStatus = response.status
            guard response.status >= 400 else { return (.succeeded, answer) }
            (failure, retryable) = ("the server answered \(response.status)", retryOn.contains(response.status))
        }
        lastError = failure
        guard retryable else { return (.failed(failure, exhausted: false), answer) }
        guard Int(attempts) < maxAttempts else {
            let why = attempts > 1 ? "\(attempts) attempts failed; the last: \(failure)" : failure
            return (.failed(why, exhausted: true), answer)
        }
        nextAttempt = now.instant.advanced(by: max(backoff(random: random), retryAfter(answer, at: now, cap: maxRetryAfter) ?? 0))
        return (.retry(failure), answer)
    }

    /// Starts the next attempt: counts it and sets when it is given up as unanswered.
    public mutating func start(at now: Instant, timeout: Int64) {
        attempts += 1
        inFlight = true
        nextAttempt = now
        requestDeadline = now.advanced(by: timeout)
    }

    /// The wait an answer's `Retry-After` asks for (seconds, or an HTTP date), capped at `cap`.
    func retryAfter(_ answer: HTTPAnswer?, at now: ClockReading, cap: Int64) -> Int64? {
        // Only a job that keeps its answer's headers (a request job, not a group member) waits as
        // its own `Retry-After` asks; the header's pause of the whole target is the scheduler's.
        guard answer?.headers != nil else { return nil }
        return answer?.retryAfterNanos(at: now, cap: cap)
    }
}
