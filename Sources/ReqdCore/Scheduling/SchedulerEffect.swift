import ReqdProtocol

/// Something the daemon must do because of an event.
public enum SchedulerEffect: Sendable {
    /// Arm the one timer to fire at this boot-time instant (replacing any earlier arming).
    case arm(Instant)
    /// Nothing waits for time: leave the timer unarmed.
    case disarm
    /// Send a reply to a request.
    case reply(ConnectionID, RequestID, Result<ReplyBody, SchedulerError>)
    /// Send a job event to these recipients; lifecycle events come even with none, for the log.
    indirect case deliver(JobEvent, to: [Recipient])
    /// Write a change to the store, in order with every other change.
    indirect case persist(StoreChange)
    /// Reply to a `status` with `info` and its job's attempt log, which only the store holds (a
    /// durable job's): read it after every change emitted before this one.
    indirect case replyWithStoredAttempts(ConnectionID, RequestID, JobInfo)
    /// Report `commitCompleted(token)` once every change emitted before this one is committed.
    case commitBarrier(CommitToken)
    /// Ask the shared store what this daemon's table cannot answer; the answer comes back as
    /// `clusterAnswered`, after every batch before it.
    indirect case askCluster(ClusterQuery)
    /// Tell the holder of a job another daemon holds that no one here watches it any more.
    case unwatchElsewhere(JobID)
    /// Start an HTTP request and report its end with `httpFinished`.
    indirect case send(HTTPSend)
    /// Cancel a request started by `send`, on the wire; its end is not needed any more.
    case abort(JobID, attempt: UInt32)
    /// A change in the daemon's own state worth an info log line, such as a target becoming unreachable.
    case notice(String)
    /// A target's circuit breaker changed state: a notice log line, with the target and the
    /// figures in the message, and a count in the metrics.
    case breakerChanged(target: String, BreakerState, String)
    /// Free this storage, off the scheduler's queue: tables a shrink replaced.
    case dispose(Disposal)
    /// Tables shrank or many jobs were forgotten: give the memory the allocator keeps free back
    /// to the system.
    case releaseMemory
    /// An event of this type and job kind that nobody watches, so none was built: for the
    /// daemon's counters only. (Events that are delivered are counted from `deliver`.)
    case counted(JobEventType, JobKind)
    /// A request was aborted after waiting this long for an answer (`http.request_timeout`): the
    /// executor reports no end for it, so the daemon counts it here as a request with no answer.
    case requestTimedOut(afterNanos: Int64)
    /// A detail worth a debug log line about one job.
    case debug(JobID, String)
}
