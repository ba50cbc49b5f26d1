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
