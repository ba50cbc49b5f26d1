/// The result of `watch`: the job's current view, or the scope's current jobs.
public struct WatchResult: Codable, Sendable, Hashable {
    /// The watched job, when watching one job. If it has already ended, no events follow.
    public var job: JobInfo?
    /// The watched scope, when watching a scope.
    public var scope: String?
    /// Whether events will follow on this connection.
    public var streaming: Bool

    public init(job: JobInfo?, scope: String?, streaming: Bool) {
        self.job = job
        self.scope = scope
        self.streaming = streaming
    }
}
