import ReqdProtocol

/// Work the scheduler does once the store has committed a batch.
enum PendingCommit: Sendable {
    /// A durable registration: the job goes live and the reply goes out.
    case registration(Job, ConnectionID, RequestID, follow: Bool)
    /// A reply held until the change it reports is on disk.
    case reply(ConnectionID, RequestID, Result<ReplyBody, SchedulerError>)
    /// A request job another job's end started, written with that end.
    case spawn(Job)
    /// A `submit` deduplicated onto a job that was still waiting for its own commit.
    case duplicate(ConnectionID, RequestID, JobID, follow: Bool)
    /// A whole row written again for a job whose first insert failed; once it commits, the job's
    /// later writes update columns again.
    case stored(JobID)
}
