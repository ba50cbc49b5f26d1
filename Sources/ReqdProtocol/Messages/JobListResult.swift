/// The result of `list`: one page of jobs.
public struct JobListResult: Codable, Sendable, Hashable {
    public var jobs: [JobInfo]
    /// True when more jobs matched than this page holds (then `next` is given).
    public var truncated: Bool
    /// The cursor of the next page, for `after`; absent on the last page.
    public var next: String?

    /// A page of `jobs`; `next` when more jobs match after them.
    public init(jobs: [JobInfo], next: String?) {
        self.jobs = jobs
        self.next = next
        truncated = next != nil
    }
}
