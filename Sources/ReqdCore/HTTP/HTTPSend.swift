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
    /// Whether to ask for a compressed answer (the target's `decompress`); the scheduler sets it.
    public var acceptCompressed = true
    /// The group member this request is for; nil for other kinds.
    public var member: Int?
    /// How to sign it, when its target has `sign_secret_file`; the scheduler sets it.
    public var signing: WebhookSigning?
    /// The target's private CA or client certificate, when it has one; the scheduler sets it.
    public var tls: TargetTLS?
    /// The target's rate, when it has one, which the request is held to as it is written; the
    /// scheduler sets it.
    public var pace: WirePace?

    public init(job: JobID, attempt: UInt32, request: HTTPRequestSpec, parseJSON: Bool, keepHeaders: Bool = false) {
        self.job = job
        self.attempt = attempt
        self.request = request
        self.parseJSON = parseJSON
        self.keepHeaders = keepHeaders
    }
}
