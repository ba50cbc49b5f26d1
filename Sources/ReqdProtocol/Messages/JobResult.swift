/// The result of `status JOB_ID` and `wait`.
public struct JobResult: Codable, Sendable, Hashable {
    public var job: JobInfo

    public init(job: JobInfo) { self.job = job }
}
