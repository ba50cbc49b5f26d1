/// The answer that ended a job: its HTTP status, its headers for request jobs, and the start of its body.
public struct HTTPResult: Codable, Sendable, Hashable {
    public var status: Int
    /// The response headers as `Name: value` lines; request jobs keep them, poll jobs do not.
    public var headers: [String]?
    /// The body as text (invalid UTF-8 replaced), cut to the configured size.
    public var body: String
    /// Whether `body` was cut.
    public var truncated: Bool

    public init(status: Int, headers: [String]? = nil, body: String, truncated: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncated = truncated
    }
}
