import ReqdProtocol

/// An event for a job's watchers, before the scheduler fills in who the job is.
struct JobNote: Sendable, Hashable {
    var type: JobEventType
    var remainingMs: Int64?
    var status: Int?
    var error: String?
    var member: Int?
    var memberState: MemberState?
    /// Why a job is held.
    var reason: EventReason?
    /// A group's counts when this member ended: several members ending in one turn each report
    /// their own step, not the turn's last.
    var done: Int?
    var failures: Int?

    init(
        _ type: JobEventType, remainingMs: Int64? = nil, status: Int? = nil, error: String? = nil, member: Int? = nil,
        memberState: MemberState? = nil, reason: EventReason? = nil
    ) {
        self.type = type
        self.remainingMs = remainingMs
        self.status = status
        self.error = error
        self.member = member
        self.memberState = memberState
        self.reason = reason
    }

    /// Writes the note's details into an event of the job.
    func fill(_ event: inout JobEvent) {
        event.remainingMs = remainingMs ?? event.remainingMs
        event.status = status ?? event.status
        event.error = error ?? event.error
        event.member = member
        event.memberState = memberState
        event.reason = reason ?? event.reason
        event.done = done ?? event.done
        event.failures = failures ?? event.failures
    }
}
