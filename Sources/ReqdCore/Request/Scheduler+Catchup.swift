/// Overdue HTTP work and `CatchupPacer`: a request or poll job whose timer starts work that fell
/// due more than a second ago, or an `on_expire` request of a late expiry, waits for its target's
/// next slot instead.
extension Scheduler {
    /// Moves an overdue attempt of request job `id` to its slot; true when it must wait for it.
    mutating func paceOverdueRequest(_ id: JobID, at now: Instant) -> Bool {
        guard let slot = table.deliveries[id], slot.header.isActive else { return false }
        let delivery = slot.machine
        guard startingOnTimer || delivery.catchUp, !delivery.held, !delivery.inFlight, delivery.nextAttempt <= now else {
            return false
        }
        let rate = configuration.catchupRate
        let at =
            delivery.catchUp
            ? catchup.take(delivery.origin, at: now, rate: rate)
            : catchup.slot(for: delivery.origin, due: delivery.nextAttempt, at: now, rate: rate)
        table.deliveries[id]?.machine.catchUp = false
        guard at > now else { return false }
        table.deliveries[id]?.machine.nextAttempt = at
        timers.set(.job(id), priority: at)
        return true
    }

    /// Moves an overdue request of poll job `id` to its slot; true when it must wait for it.
    mutating func paceOverduePoll(_ id: JobID, at now: Instant) -> Bool {
        guard startingOnTimer, let slot = table.polls[id], slot.header.isActive else { return false }
        let poll = slot.machine
        guard !poll.inFlight, poll.nextStart <= now, poll.deadline.map({ $0 > now }) ?? true else { return false }
        let origin = String(RequestURL.origin(poll.request.url))
        let at = catchup.slot(for: origin, due: poll.nextStart, at: now, rate: configuration.catchupRate)
        guard at > now else { return false }
        table.polls[id]?.machine.nextStart = at
        if let fire = table.polls[id]?.machine.nextFire { timers.set(.job(id), priority: fire) }
        return true
    }
}
