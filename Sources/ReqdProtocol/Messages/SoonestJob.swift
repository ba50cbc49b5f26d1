/// A job and when the daemon next acts on it, as `metrics` lists them.
public struct SoonestJob: Codable, Sendable, Hashable {
    /// When its next deadline comes: a countdown's tick or expiry, a poll's next request, a request
    /// job's next attempt, or a time limit.
    public var dueAt: WallTime
    /// Time until then, in milliseconds; negative when it is already due.
    public var dueInMs: Int64
    public var job: JobInfo

    public init(dueAt: WallTime, dueInMs: Int64, job: JobInfo) {
        self.dueAt = dueAt
        self.dueInMs = dueInMs
        self.job = job
    }

    enum CodingKeys: String, CodingKey {
        case dueAt = "due_at"
        case dueInMs = "due_in_ms"
        case job
    }
}
