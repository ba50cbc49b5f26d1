/// The body of a group's `on_complete` report: how the group ended and every member's outcome.
public struct GroupReport: Codable, Sendable, Hashable {
    public var job: String
    /// `succeeded` when every member did, else `failed`.
    public var state: JobState
    public var total: Int
    public var done: Int
    public var failures: Int
    /// Every member, in order.
    public var members: [MemberInfo]
    /// Every member that did not succeed, in order.
    public var errors: [MemberError]

    public init(job: String, state: JobState, total: Int, done: Int, failures: Int, members: [MemberInfo], errors: [MemberError]) {
        self.job = job
        self.state = state
        self.total = total
        self.done = done
        self.failures = failures
        self.members = members
        self.errors = errors
    }
}
