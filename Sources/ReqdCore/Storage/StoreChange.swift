import ReqdProtocol

/// One change for the store to make. Changes are applied in order, in one transaction per batch.
public enum StoreChange: Sendable, Hashable {
    /// Add a new job. The job it superseded with its key ends through a change of its own; on
    /// PostgreSQL, whose unique index allows one active row a key, other active rows with the same
    /// owner and key are also marked cancelled (superseded) in the same transaction.
    case insert(JobRecord)
    /// Set a job's changing columns (its state, end, answer and counters) after a retry or its
    /// end, leaving its settings as they were written.
    case progress(String, JobProgress)
    /// Update an active poll's counters after an answer, leaving the rest of its row as it is.
    case pollCounters(String, PollCounters)
    /// Record how one member of an active group ended, leaving the rest of the group as it is.
    case groupMember(String, index: Int, MemberRecord)
    /// Add an attempt to a job's attempt log, which keeps the last `AttemptInfo.kept`.
    case attempt(String, AttemptInfo)
    /// Set the address of the job's last logged attempt, when it is attempt `number` and has none.
    case attemptAddress(String, number: Int, address: String)
    /// Remove a job's row (its retention has passed).
    case delete(String)
}

extension StoreChange {
    /// The id of the job the change is for.
    public var jobID: String {
        switch self {
        case .insert(let record): record.id
        case .progress(let id, _), .pollCounters(let id, _), .groupMember(let id, _, _), .attempt(let id, _),
            .attemptAddress(let id, _, _), .delete(let id): id
        }
    }
}
