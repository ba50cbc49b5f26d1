/// A group job's members and outcome, as `status JOB_ID` shows it and `on_complete` receives it.
public struct GroupInfo: Codable, Sendable, Hashable {
    public var concurrency: Int
    public var timeoutMs: Int64?
    /// Members in all.
    public var total: Int
    /// Members that have ended.
    public var done: Int
    /// Members that ended other than succeeded.
    public var failures: Int
    /// Every member, in order.
    public var members: [MemberInfo]
    /// Every member that did not succeed, in order: all of them, not just the first.
    public var errors: [MemberError]
    /// The `on_complete` request job, once the group has completed.
    public var onCompleteJob: String?

    public init(
        concurrency: Int, timeoutMs: Int64?, total: Int, done: Int, failures: Int, members: [MemberInfo], errors: [MemberError],
        onCompleteJob: String?
    ) {
        self.concurrency = concurrency
        self.timeoutMs = timeoutMs
        self.total = total
        self.done = done
        self.failures = failures
        self.members = members
        self.errors = errors
        self.onCompleteJob = onCompleteJob
    }

    enum CodingKeys: String, CodingKey {
        case concurrency
        case timeoutMs = "timeout_ms"
        case total, done, failures, members, errors
        case onCompleteJob = "on_complete_job"
    }
}

/// Where a group member is: waiting, running, or how it ended.
public enum MemberState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Not started yet.
    case pending
    /// Started: a request is out, or a retry is planned.
    case running
    case succeeded
    case failed
    /// Still running when the group's time limit ran out; its request was aborted.
    case timedOut = "timed_out"
    /// The group was cancelled while it ran.
    case cancelled
    /// Never started: the group's time limit ran out first.
    case notStarted = "not_started"

    /// Whether the member has ended.
    public var isEnded: Bool { self != .pending && self != .running }
}

/// One member of a group.
public struct MemberInfo: Codable, Sendable, Hashable {
    /// Its place in the group, from 0.
    public var index: Int
    public var method: String
    public var url: String
    public var state: MemberState
    /// Attempts started.
    public var attempts: Int
    /// The HTTP status of its last answer.
    public var status: Int?
    /// The start of its last answer's body.
    public var body: String?
    public var truncated: Bool?
    /// Why it did not succeed.
    public var error: String?

    public init(
        index: Int, method: String, url: String, state: MemberState, attempts: Int, status: Int?, body: String?,
        truncated: Bool?, error: String?
    ) {
        self.index = index
        self.method = method
        self.url = url
        self.state = state
        self.attempts = attempts
        self.status = status
        self.body = body
        self.truncated = truncated
        self.error = error
    }
}

/// A member that did not succeed, and why.
public struct MemberError: Codable, Sendable, Hashable {
    public var index: Int
    public var state: MemberState
    public var error: String

    public init(index: Int, state: MemberState, error: String) {
        self.index = index
        self.state = state
        self.error = error
    }
}
