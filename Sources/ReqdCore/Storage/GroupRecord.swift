import ReqdProtocol

/// A group as stored: its members' requests, written once, and where each member is.
public typealias GroupRecord = WorkRecord<GroupSettings, GroupCounters>

extension WorkRecord where Settings == GroupSettings, Counters == GroupCounters {
    /// The stored form of a group, its time limit projected onto the wall clock.
    init(_ group: Group, at now: ClockReading) {
        self.init(
            settings: GroupSettings(
                members: group.members.map { DeliverySettings($0.delivery) }, concurrency: group.concurrency,
                timeoutNanos: group.timeout, deadline: group.deadline.map(now.wall(at:)),
                onComplete: group.onComplete.map { DeliverySettings($0.value) }),
            counters: GroupCounters(group))
    }

    /// The group as it resumes: ended members keep their outcome and are not sent again; the
    /// others start again, as soon as the timer fires, in member order. When its time limit ran
    /// out while the daemon was down, the members that had been sent end `timed_out` here, and
    /// the timer's `timeOut` leaves only those never sent to end `not_started`. An ended group
    /// (not `active`) is read back as it ended, its members as they were.
    func resumed(at now: ClockReading, active: Bool = true) -> Group? {
        guard settings.members.count == counters.members.count, settings.concurrency > 0 else { return nil }
        let members = zip(settings.members, counters.members).map { settings, stored in
            var member = GroupMember(delivery: settings.delivery(firstAttempt: now.instant))
            member.delivery.attempts = UInt32(clamping: stored.attempts)
            member.delivery.lastStatus = stored.lastStatus
            member.state = stored.state.isEnded || !active ? stored.state : .pending
            member.result = stored.result
            member.error = stored.error
            return member
        }
        var group = Group(
            members: members, concurrency: settings.concurrency, timeout: settings.timeoutNanos,
            deadline: settings.deadline.map(now.instant(at:)), onComplete: settings.onComplete.map { Box($0.delivery(firstAttempt: now.instant)) })
        group.spawned = counters.spawned.map(JobID.init)
        guard active else { return group }
        group.resumeAt = now.instant
        if let deadline = settings.deadline, deadline <= now.wall, let limit = settings.timeoutNanos {
            let text = DurationText.format(nanoseconds: limit)
            for (index, stored) in counters.members.enumerated() where !stored.state.isEnded && (stored.state == .running || stored.attempts > 0) {
                group.end(index, as: .timedOut, error: "sent before the daemon stopped; the group's time limit of \(text) ran out before it was back")
            }
        }
        return group
    }
}
