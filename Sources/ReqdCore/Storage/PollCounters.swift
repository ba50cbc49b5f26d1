import ReqdProtocol

/// The part of a stored poll that changes on every answer.
///
/// The store keeps these in columns of their own and updates them in place, so an answer costs
/// one small `UPDATE` instead of re-encoding the poll's whole JSON detail (BENCHMARKS.md).
public struct PollCounters: Sendable, Hashable, Codable {
    public var polls: Int
    public var failures: Int
    public var progress: Double?
    public var lastStatus: Int?
    public var lastError: String?
    /// When the last answered request started.
    public var lastStart: WallTime?

    enum CodingKeys: String, CodingKey {
        case polls, failures, progress
        case lastStatus = "last_status"
        case lastError = "last_error"
        case lastStart = "last_start"
    }

    public init(polls: Int, failures: Int, progress: Double?, lastStatus: Int?, lastError: String?, lastStart: WallTime?) {
        self.polls = polls
        self.failures = failures
        self.progress = progress
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.lastStart = lastStart
    }
}

extension PollCounters {
    /// A poll's counters, with its last start on the wall clock; none while a request is out,
    /// because that request is sent again after a restart.
    init(_ poll: Poll, at now: ClockReading) {
        self.init(
            polls: poll.polls, failures: poll.failures, progress: poll.progress, lastStatus: poll.lastStatus,
            lastError: poll.lastError, lastStart: poll.inFlight ? nil : poll.lastStart.map(now.wall(at:)))
    }
}
