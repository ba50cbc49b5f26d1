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
