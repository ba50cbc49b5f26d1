/// The body of a request job's `on_success` or `on_failure` report: the job, how it ended, and its last answer.
public struct OutcomeReport: Codable, Sendable, Hashable {
    public var job: String
    public var state: JobState
    /// Attempts made, the last included.
    public var attempts: Int
    public var url: String
    /// The last answer's status and the start of its body, when there was an answer.
    public var status: Int?
    public var body: String?
    /// Why the job failed, when it did.
    public var error: String?

    public init(job: String, state: JobState, attempts: Int, url: String, status: Int?, body: String?, error: String?) {
        self.job = job
        self.state = state
        self.attempts = attempts
        self.url = url
        self.status = status
        self.body = body
        self.error = error
    }
}
