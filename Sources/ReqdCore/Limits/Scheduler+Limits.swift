import ReqdProtocol

/// Per-user limits (`UserLimits`): active jobs are refused beyond their quota, requests in flight
/// wait their turn, retained jobs are forgotten oldest first, and `status` shows the caller's use.
extension Scheduler {
    /// Refuses one more active job of `owner` at its quota.
    func checkActiveQuota(of owner: UInt32) throws(SchedulerError) {
        let limits = configuration.userLimits
        guard limits.apply(to: owner) else { return }
        let active = table.activeJobs(ownedBy: owner) + commits.stagedCount(ownedBy: owner)
        guard active < limits.activeJobs else {
            throw SchedulerError(
                .quotaExceeded, "limits.active_jobs_per_user is \(limits.activeJobs), and uid \(owner) has \(active) active jobs")
        }
    }

    /// Whether job `id`, about to start a request while its owner has every request slot in use,
    /// must wait for one; if so it is put in line, and only what must still fire while it waits
    /// stays on the timer: its time limit, and the request timeouts of a group's members on the wire.
    ///
    /// A network probe never waits: every user's held jobs for its target wait for it.
    mutating func waitsForRequestSlot(_ id: JobID, at now: ClockReading) -> Bool {
        guard !ledger.isEmpty, let header = table[id], header.isActive else { return false }
        let owner = header.owner
        let limits = configuration.userLimits
        guard limits.apply(to: owner), ledger.inFlight(owner) >= limits.requestsInFlight, !isProbe(id),
            wouldSend(id, at: now)
        else { return false }
        ledger.wait(id, owner: owner)
        keepOnlyWhatRunsWhileWaiting(id, at: now)
        return true
    }

    /// Leaves on the timer only what must still fire while job `id` waits to send (for a slot
    /// of its owner's or for its target): a poll's or a group's time limit, and for a group's
    /// running members each one's request timeout or, off the wire, its next attempt, which may
    /// go to a target that is free while the group waits in another's line.
    mutating func keepOnlyWhatRunsWhileWaiting(_ id: JobID, at now: ClockReading) {
        let stillDue: Instant? =
            switch id.kind {
            case .poll?: table.polls[id]?.machine.deadline
            case .group?: table.groups[id].map { slot in
                let group = slot.machine
                let running = group.running.map { group.members[$0] }
                let fires = running.map { $0.wire != nil ? $0.delivery.requestDeadline : $0.delivery.nextFire }
                return ([group.deadline].compactMap { $0 } + fires.compactMap { $0 }.filter { $0 > now.instant }).min()
            } ?? nil
            default: nil
            }
        if let stillDue { timers.set(.job(id), priority: stillDue) } else { timers.remove(.job(id)) }
    }

    /// Whether `id` is out as the probe of an unreachable target.
    private func isProbe(_ id: JobID) -> Bool {
        guard !network.isEmpty, let origin = table.deliveries[id]?.machine.origin else { return false }
        return network.targets[origin]?.probe == id
    }

    /// Whether advancing job `id` now would put a request on the wire; nothing changes.
    private func wouldSend(_ id: JobID, at now: ClockReading) -> Bool {
        !urlsToSend(id, at: now).isEmpty
    }

    /// The URLs of the requests advancing job `id` now would put on the wire; nothing changes.
    func urlsToSend(_ id: JobID, at now: ClockReading) -> [String] {
        switch id.kind {
        case .request?:
            guard let delivery = table.deliveries[id]?.machine,
                !delivery.held && !delivery.inFlight && delivery.nextAttempt <= now.instant
            else { return [] }
            return [delivery.request.url]
        case .poll?:
            guard let poll = table.polls[id]?.machine,
                !poll.inFlight && poll.nextStart <= now.instant && (poll.deadline.map { $0 > now.instant } ?? true)
            else { return [] }
            return [poll.request.url]
        case .group?:
            guard let group = table.groups[id]?.machine else { return [] }
            return group.plannedStarts(at: now.instant).map { group.members[$0].delivery.request.url }
        case .countdown?, .schedule?, nil:
            return []
        }
    }

    /// Starts the jobs that wait for a request slot their owners now have free, longest waiting first.
    mutating func startWaitingJobs(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        var rounds = 0
        while !ledger.freed.isEmpty, rounds < 64 {
            rounds += 1
            for owner in ledger.takeFreed() {
                let limits = configuration.userLimits
                while !limits.apply(to: owner) || ledger.inFlight(owner) < limits.requestsInFlight,
                    let id = ledger.nextWaiting(owner)
                {
                    guard table[id]?.isActive == true else { continue }
                    advance(id, at: now, into: &effects)
                }
            }
        }
    }

    /// After a reload: limits may have grown or shrunk, so every owner with jobs in line, or with
    /// ended jobs kept, is looked at again.
    mutating func limitsChanged() {
        ledger.markWaitingFreed()
        limiter.markAllFreed()
        table.retentionGrew.formUnion(table.retainedByOwner.keys)
    }

    /// After a reload changed `request.dead_retention`: every dead letter leaves at its end plus
    /// the new retention, as a restart would plan it, not the one of its death.
    mutating func replanDeadLetters(at now: ClockReading) {
        for (key, leaf) in table.listIndex.leaves where key.state == .dead && key.group == .all {
            for entry in leaf.elements {
                guard let ended = table[entry.id]?.endedAt else { continue }
                timers.set(.job(entry.id), priority: now.instant(at: ended).advanced(by: configuration.deadRetentionNanos))
            }
        }
    }

    /// Forgets the ended jobs of owners over `limits.retained_jobs_per_user`, each one's oldest
    /// first, within what is left of the turn's share (`forgetsLeft`); uses it all up when an
    /// owner is still over, so that the next share comes soon.
    mutating func forgetOverOwnerRetention(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let limits = configuration.userLimits
        let due = table.overOwnerLimits(share: forgetsLeft) { limits.apply(to: $0) ? limits.retainedJobs : nil }
        for id in due {
            forgetRetained(id, at: now, into: &effects)
        }
        forgetsLeft = table.retentionGrew.isEmpty ? max(0, forgetsLeft - due.count) : 0
    }

    /// Forgets the first created dead letters (but `died`, the one that just died) while its
    /// owner holds more than `limits.retained_jobs_per_user` of them, or every owner together
    /// more than `jobs.max_retained`: dead letters are kept apart from other ended jobs (longer,
    /// for `retry`), under the same caps, so that requests that fail at once cannot pile up for
    /// `request.dead_retention`. At most `deadLetterForgets` go per death, so that a cap lowered
    /// by a reload is met over the next deaths, not in one turn.
    mutating func capDeadLetters(died: JobID, owner: UInt32, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        var left = Self.deadLetterForgets
        let limits = configuration.userLimits
        if limits.apply(to: owner) {
            while left > 0 {
                let (count, first) = table.deadLetters(ownedBy: owner, sparing: died)
                guard count > limits.retainedJobs, let first else { break }
                forgetRetained(first, at: now, into: &effects)
                left -= 1
            }
        }
        while left > 0, table.deadLetters > configuration.maxRetainedJobs, let first = table.firstDeadLetter(sparing: died) {
            forgetRetained(first, at: now, into: &effects)
            left -= 1
        }
    }

    /// The most dead letters one death makes the caps forget.
    static let deadLetterForgets = 16

    /// The caller's use of its limits, for the daemon summary.
    func limitsSummary(for peer: Peer) -> LimitsSummary {
        let limits = configuration.userLimits
        let uid = peer.uid
        return LimitsSummary(
            uid: uid, applies: limits.apply(to: uid),
            activeJobs: LimitUsage(used: table.activeJobs(ownedBy: uid) + commits.stagedCount(ownedBy: uid), limit: limits.activeJobs),
            connections: LimitUsage(used: subscriptions.count(of: uid), limit: limits.connections),
            requestsInFlight: LimitUsage(used: ledger.inFlight(uid), limit: limits.requestsInFlight),
            requestsWaiting: ledger.waitingCount(uid),
            retainedJobs: LimitUsage(used: table.retainedJobs(ownedBy: uid), limit: limits.retainedJobs))
    }
}
