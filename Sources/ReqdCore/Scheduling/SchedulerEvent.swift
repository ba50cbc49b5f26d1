import ReqdProtocol

/// Something that happened outside the scheduler, handed to it with the time it happened.
public enum SchedulerEvent: Sendable {
    /// A client connected.
    case connectionOpened(ConnectionID, Peer)
    /// A client's connection closed, for any reason.
    case connectionClosed(ConnectionID)
    /// A decoded request from a connection.
    case request(ConnectionID, Request)
    /// The one timer fired.
    case timerFired
    /// A request the scheduler asked for (with `.send`) ended.
    case httpFinished(JobID, attempt: UInt32, HTTPOutcome, address: String? = nil)
    /// The address a request aborted at its request timeout had been sent to, learned after the
    /// abort (a `send`'s end otherwise carries it in `httpFinished`).
    case attemptAddressed(JobID, attempt: UInt32, address: String)
    /// The store finished the batch that a `commitBarrier` closed: `nil` on success, else why it failed.
    case commitCompleted(CommitToken, failure: String?)
    /// Jobs read from the store at start-up, all at once.
    case restore([JobRecord])
    /// Some of the jobs read from the store at start-up, handed over as the store reads them, so
    /// that reading and restoring overlap; `restoreEnded` follows the last chunk.
    case restoreChunk(RestoreChunk)
    /// Every chunk has been handed over.
    case restoreEnded
    /// Another daemon sharing the store ended a job this one runs: a newer job with its key
    /// (`replacedBy`) or a cancel. The job ends here as cancelled, and its requests in flight are
    /// aborted; what the other daemon wrote stands.
    case endedElsewhere(JobID, replacedBy: JobID?)
    /// The shared store answered a request about jobs another daemon may hold.
    indirect case clusterAnswered(ClusterQuery, ClusterAnswer)
    /// A job another daemon held ended, read back from the shared store, for its waiters here.
    indirect case waitedJobEnded(JobRecord)
    /// A job another daemon held ended and its row was gone (forgotten, deleted) before this
    /// daemon could read it: its waiters here are answered `unknown_job`.
    case waitedJobGone(JobID)
    /// Another daemon (named) asks for the events of a job this one holds.
    case watchedElsewhere(JobID, by: String)
    /// Another daemon (named) no longer watches a job this one holds.
    case unwatchedElsewhere(JobID, by: String)
    /// An event of a job another daemon holds, for the watchers here.
    indirect case eventElsewhere(JobEvent)
    /// Another daemon took the row of an ended job this one held, to retry it.
    case takenElsewhere(JobID)
    /// A later turn for the lists in progress (`Scheduler.hasListsInProgress`).
    case continueLists
    /// A link, address or route changed: unreachable targets are worth a probe now.
    case networkChanged
    /// The wall clock was stepped: schedules plan their pending elapses again.
    case clockStepped
    /// The daemon's local zone changed (`zones.local()` has the new one): schedules given no zone
    /// plan their pending elapses again in it.
    case localZoneChanged
    /// A reloaded configuration.
    indirect case reconfigure(SchedulerConfiguration)
    /// The daemon is stopping: refuse new work.
    case shutdown
}
