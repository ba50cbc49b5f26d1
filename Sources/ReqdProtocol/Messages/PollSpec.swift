/// `register-poll`: call a status URL until a condition on its answer holds.
public struct PollSpec: Codable, Sendable, Hashable {
    /// The status URL; `http` or `https` only.
    public var url: String
    /// The HTTP method (default `GET`).
    public var method: String?
    /// Request headers as `Name: value` lines.
    public var headers: [String]?
    /// The request body, sent as given (as UTF-8).
    public var body: String?
    /// A body of any bytes, in base64 (RFC 4648); at most one of this and `body`.
    public var bodyBase64: String?
    /// The poll interval in milliseconds: the least time between two request starts.
    public var everyMs: Int64
    /// The condition that ends the job with `succeeded`, such as `/state == "done"`.
    public var until: String
    /// A JSON Pointer to a number in the body that reports progress.
    public var progress: String?
    /// The total time limit in milliseconds; the job ends `timed_out` when it passes.
    public var timeoutMs: Int64?
    /// The most polls; the job ends `timed_out` when the last one did not satisfy the condition.
    public var maxPolls: Int?
    /// How many failed polls in a row end the job `failed` (default from the configuration, 5).
    public var maxFailures: Int?
    /// An optional key: registering the same key again replaces the running job.
    public var key: String?
    /// An optional scope, used by `cancel --scope` and `watch --scope`.
    public var scope: String?
    /// Skip the store: the job is not restored after a restart.
    public var ephemeral: Bool?
    /// Cancel the job when the connection that registered it closes.
    public var bindConnection: Bool?
    /// Stream the job's events on this connection after the reply, tagged with this request's id.
    public var follow: Bool?

    public init(
        url: String, method: String? = nil, headers: [String]? = nil, body: String? = nil, bodyBase64: String? = nil, everyMs: Int64,
        until: String, progress: String? = nil, timeoutMs: Int64? = nil, maxPolls: Int? = nil,
        maxFailures: Int? = nil, key: String? = nil, scope: String? = nil, ephemeral: Bool? = nil,
        bindConnection: Bool? = nil, follow: Bool? = nil
    ) {
        self.bindConnection = bindConnection
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.bodyBase64 = bodyBase64
        self.everyMs = everyMs
        self.until = until
        self.progress = progress
        self.timeoutMs = timeoutMs
        self.maxPolls = maxPolls
        self.maxFailures = maxFailures
        self.key = key
        self.scope = scope
        self.ephemeral = ephemeral
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case url, method, headers, body
        case bodyBase64 = "body_base64"
        case everyMs = "every_ms"
        case until, progress
        case timeoutMs = "timeout_ms"
        case maxPolls = "max_polls"
        case maxFailures = "max_failures"
        case key, scope, ephemeral
        case bindConnection = "bind_connection"
        case follow
    }
}
