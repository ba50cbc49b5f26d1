import ReqdProtocol

/// What a job's state machine asks of the scheduler after an event: one vocabulary for every kind.
///
/// A machine knows only its own kind's state. It says which requests to start or abort, when it
/// next needs the timer, what its watchers should hear, what the store should learn and whether
/// the job has ended; the scheduler, which knows the job's identity, its watchers and the other
/// parts, turns that into `SchedulerEffect`s in one place (`Scheduler.perform(_:for:at:into:)`).
struct JobAction: Sendable, Equatable {
    /// A request to start or to abort, in order: an abort before the send that replaces it.
    enum WireOp: Sendable, Hashable {
        case send(HTTPSend)
        case abort(attempt: UInt32)
    }

    /// How the job's entry in the timer heap changes.
    enum DeadlineChange: Sendable, Hashable {
        case keep
        case set(Instant)
        case clear
    }

    /// What the store learns of a durable job that goes on.
    enum Persist: Sendable, Hashable {
        /// Its changing columns: state, end, answer and counters.
        case progress
        /// A poll's counters only.
        case pollCounters
        /// How one group member ended.
        case member(Int)
    }

    /// What the job's target showed about the network.
    enum Network: Sendable, Hashable {
        /// The target could not be reached; the job is held.
        case unreachable(String)
        /// The target answered (or failed in a way that proves a route).
        case reachable
    }

    var wire: [WireOp] = []
    var deadline: DeadlineChange = .keep
    var notes: [JobNote] = []
    var persist: [Persist] = []
    var network: Network?
    /// The latest answer worth keeping in the job's header, for `status`.
    var result: HTTPResult?
    var debug: [String] = []
    /// Targets (origins) of requests aborted because no answer came within the request timeout:
    /// the executor never reports them, so the scheduler counts them here.
    var timedOut: [String] = []
    /// Retries planned that no note reports (a group member's), for the daemon's counters.
    var unreportedRetries = 0
    /// The attempt that just ended, as the job's log now has it: the store learns it too.
    var attempt: AttemptInfo?
    /// Set when the job ended; the scheduler retires it.
    var end: JobEnd?

    /// Nothing to do.
    static let none = JobAction()
}
