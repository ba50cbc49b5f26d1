/// What the shared store answered to a `ClusterQuery`.
public enum ClusterAnswer: Sendable, Hashable {
    /// The job's row for `status` and `wait` (its attempt log in it when asked for), or nil when
    /// the store has no such job.
    case found(JobRecord?)
    /// The jobs a `cancel` ended, oldest id first; `found` is false when the selector named a job
    /// or a key the store does not have.
    case cancelled([String], found: Bool)
    /// The row of the job a `retry` named as it was before, and whether this daemon took it to
    /// retry it; nil when the store has no such job.
    case retried(JobRecord?, taken: Bool)
    /// The rows a `list` asked for, oldest first, and whether more follow them.
    case listed([JobRecord], more: Bool)
    /// The store could not be asked; the reason is for the reply.
    case unavailable(String)
}
