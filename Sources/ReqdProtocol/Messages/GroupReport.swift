/// The body of a group's `on_complete` report: how the group ended and every member's outcome.
///
/// A report is at most `http.max_request_bytes`, the most a registered body may be, when the
/// counts alone fit in it. Past that, the members' answer bodies are left out first, then the end
/// of `members` and of `errors`, with counts of what was left out.
public struct GroupReport: Codable, Sendable, Hashable {
    public var job: String
    /// `succeeded` when every member did, else `failed`.
    public var state: JobState
    public var total: Int
    public var done: Int
    public var failures: Int
    /// Every member, in order, or the first ones when `membersOmitted` is set.
    public var members: [MemberInfo]
    /// Every member that did not succeed, in order, or the first ones when `errorsOmitted` is set.
    public var errors: [MemberError]
    /// How many members at the end of `members` were left out to keep the report within its size.
    public var membersOmitted: Int?
    /// How many entries at the end of `errors` were left out to keep the report within its size.
    public var errorsOmitted: Int?

    public init(
        job: String, state: JobState, total: Int, done: Int, failures: Int, members: [MemberInfo], errors: [MemberError],
        membersOmitted: Int? = nil, errorsOmitted: Int? = nil
    ) {
        self.job = job
        self.state = state
        self.total = total
        self.done = done
        self.failures = failures
        self.members = members
        self.errors = errors
        self.membersOmitted = membersOmitted
        self.errorsOmitted = errorsOmitted
    }

    enum CodingKeys: String, CodingKey {
        case job, state, total, done, failures, members, errors
        case membersOmitted = "members_omitted"
        case errorsOmitted = "errors_omitted"
    }
}
