import ReqdProtocol

/// A client's request about durable jobs that another daemon sharing the store may hold, for the
/// store to answer: the scheduler asks when its own table cannot answer alone.
public struct ClusterQuery: Sendable, Hashable {
    /// What the store is to do.
    public enum Operation: Sendable, Hashable {
        /// Read the job's row, with its attempt log when `attempts`.
        case status(job: String, attempts: Bool)
        /// Read the job's row and, while it is active, ask to be told when it ends.
        case wait(job: String)
        /// Read the job's row and, while it is active, ask its holder for its events and to be
        /// told when it ends.
        case watch(job: String)
        /// Take the row of a dead or failed request job for this daemon to retry, marking it
        /// active, so that only one daemon retries it; its old holder forgets it.
        case retry(job: String)
        /// Read, in creation order, the first `limit` rows after `after` (a `list` cursor's text)
        /// that the filter selects among the jobs other daemons hold.
        case list(ListRequest, limit: Int)
        /// End as `cancelled` the active rows the selector names that this daemon does not hold;
        /// their holders hear of it and abort their requests.
        case cancel(JobSelector)
    }

    /// The connection the reply goes to.
    public let connection: ConnectionID
    /// The request the reply answers.
    public let requestID: RequestID
    /// The caller's uid: a key is looked up among its jobs, and only root reaches other owners'.
    public let uid: UInt32
    /// What to do.
    public let operation: Operation

    /// A query for the request `requestID` on `connection`, by `uid`.
    public init(connection: ConnectionID, requestID: RequestID, uid: UInt32, operation: Operation) {
        self.connection = connection
        self.requestID = requestID
        self.uid = uid
        self.operation = operation
    }
}
