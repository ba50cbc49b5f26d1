/// A request target (scheme, host and port) that is unreachable or failing.
public struct TargetInfo: Codable, Sendable, Hashable {
    /// Why the target is listed.
    public enum State: String, Codable, Sendable, Hashable {
        /// No route to it, or its name does not resolve for now: request jobs for it are held.
        case unreachable
        /// It answers with 5xx or 429, or its requests get no answer (refused, reset, none within
        /// `http.request_timeout`).
        case failing
    }

    /// The origin, such as `https://api.example.com` or `http://127.0.0.1:8080`.
    public var target: String
    public var state: State
    /// When its current run of failures began, or when it was found unreachable.
    public var since: WallTime
    /// Failed requests in a row (for `failing`).
    public var failures: Int?
    /// The last status it answered with, when it answered.
    public var lastStatus: Int?
    /// Why the last request failed.
    public var error: String?
    /// The caller's request jobs held for it (for `unreachable`).
    public var heldJobs: Int?

    public init(
        target: String, state: State, since: WallTime, failures: Int? = nil, lastStatus: Int? = nil, error: String? = nil,
        heldJobs: Int? = nil
    ) {
        self.target = target
        self.state = state
        self.since = since
        self.failures = failures
        self.lastStatus = lastStatus
        self.error = error
        self.heldJobs = heldJobs
    }

    enum CodingKeys: String, CodingKey {
        case target, state, since, failures
        case lastStatus = "last_status"
        case error
        case heldJobs = "held_jobs"
    }
}
