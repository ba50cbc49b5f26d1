/// How a request the scheduler asked for ended, as the executor reports it.
public enum HTTPOutcome: Sendable, Hashable {
    /// An answer arrived (of any status).
    case response(HTTPAnswer)
    /// No usable answer: the connection failed, timed out, or the body was too large.
    case failure(String)
    /// The target's network could not be reached: no route to it (ENETUNREACH, EHOSTUNREACH) or
    /// name resolution failing for now (EAI_AGAIN). Request jobs hold on it without spending an
    /// attempt; other kinds count it as a failure.
    case unreachable(String)
}

/// An HTTP answer, with its body already cut to the executor's limit.
public struct HTTPAnswer: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]
    /// The body parsed as JSON, when the request asked for that and it parsed.
    public var json: JSONValue?
    /// The response headers, when the request asked to keep them.
    public var headers: [HTTPHeader]?

    public init(status: Int, body: [UInt8] = [], json: JSONValue? = nil, headers: [HTTPHeader]? = nil) {
        self.status = status
        self.body = body
        self.json = json
        self.headers = headers
    }
}

/// A request for the executor to start.
public struct HTTPSend: Sendable, Hashable {
    /// The job the request belongs to.
    public var job: JobID
    /// Which of the job's requests this is; completions name it, so a stale one is recognised.
    public var attempt: UInt32
    public var request: HTTPRequestSpec
    /// Whether to parse the body as JSON before reporting it.
    public var parseJSON: Bool
    /// Whether to report the response headers; poll jobs do not need them, request jobs keep them.
    public var keepHeaders: Bool

    public init(job: JobID, attempt: UInt32, request: HTTPRequestSpec, parseJSON: Bool, keepHeaders: Bool = false) {
        self.job = job
        self.attempt = attempt
        self.request = request
        self.parseJSON = parseJSON
        self.keepHeaders = keepHeaders
    }
}
