/// The result of `list`.
public struct JobListResult: Codable, Sendable, Hashable {
    public var jobs: [JobInfo]
    /// True when more jobs matched than `limit` allowed.
    public var truncated: Bool

    public init(jobs: [JobInfo], truncated: Bool) {
        self.jobs = jobs
        self.truncated = truncated
    }
}
