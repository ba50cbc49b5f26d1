/// Where a group member is: waiting, running, or how it ended.
public enum MemberState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Not started yet.
    case pending
    /// Started: a request is out, or a retry is planned.
    case running
    case succeeded
    case failed
    /// Still running when the group's time limit ran out; its request was aborted.
    case timedOut = "timed_out"
    /// The group ended while it ran (a cancel, a newer job with its key, its connection's
    /// close); its request was aborted.
    case cancelled
    /// Never started: the group's time limit ran out, or the group ended, first.
    case notStarted = "not_started"

    /// Whether the member has ended.
    public var isEnded: Bool { self != .pending && self != .running }
}
