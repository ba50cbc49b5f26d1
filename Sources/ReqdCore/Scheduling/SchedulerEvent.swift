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
    case httpFinished(JobID, attempt: UInt32, HTTPOutcome)
    /// The store finished the batch that a `commitBarrier` closed: `nil` on success, else why it failed.
    case commitCompleted(CommitToken, failure: String?)
    /// Jobs read from the store at start-up.
    case restore([JobRecord])
    /// A link, address or route changed: unreachable targets are worth a probe now.
    case networkChanged
    /// A reloaded configuration.
    case reconfigure(SchedulerConfiguration)
    /// The daemon is stopping: refuse new work.
    case shutdown
}

/// A recipient of a job event: a connection and the `watch` request that asked for it.
public struct Recipient: Hashable, Sendable {
    public var connection: ConnectionID
    public var watch: RequestID

    public init(connection: ConnectionID, watch: RequestID) {
        self.connection = connection
        self.watch = watch
    }
}

/// Something the daemon must do because of an event.
public enum SchedulerEffect: Sendable {
    /// Arm the one timer to fire at this boot-time instant (replacing any earlier arming).
    case arm(Instant)
    /// Nothing waits for time: leave the timer unarmed.
    case disarm
    /// Send a reply to a request.
    case reply(ConnectionID, RequestID, Result<ReplyBody, SchedulerError>)
    /// Send a job event to these recipients; lifecycle events come even with none, for the log.
    case deliver(JobEvent, to: [Recipient])
    /// Write a change to the store, in order with every other change.
    case persist(StoreChange)
    /// Report `commitCompleted(token)` once every change emitted before this one is committed.
    case commitBarrier(CommitToken)
    /// Start an HTTP request and report its end with `httpFinished`.
    case send(HTTPSend)
    /// Cancel a request started by `send`, on the wire; its end is not needed any more.
    case abort(JobID, attempt: UInt32)
    /// A change in the daemon's own state worth an info log line, such as a target becoming unreachable.
    case notice(String)
    /// A detail worth a debug log line about one job.
    case debug(JobID, String)
}
