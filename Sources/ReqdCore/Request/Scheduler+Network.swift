import ReqdProtocol

/// Request jobs and an unreachable network: what crosses jobs when a target goes and comes back.
///
/// Each request job's machine holds and releases itself (`Delivery+Machine.swift`); `NetworkHold`
/// knows which targets are unreachable and which jobs wait for each. This is the policy between
/// them: who else is held, when to probe, and how held jobs resume.
extension Scheduler {
    /// A request job found its target unreachable and is held: the target is marked, the
    /// attempts still out to it are held too, and probing starts.
    mutating func holdTarget(of id: JobID, why: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let slot = table.deliveries[id] else { return }
        let origin = slot.machine.origin
        let wasOnline = network.isEmpty
        if network.hold(id, owner: slot.header.owner, origin: origin, why: why, at: now.instant) {
            effects.append(.notice("\(origin) is unreachable (\(why)); holding its request jobs until it answers"))
            holdInFlight(to: origin, why: why, at: now, into: &effects)
        }
        if wasOnline { timers.set(.probe, priority: now.instant.advanced(by: network.probeDelay)) }
    }

    /// Aborts and holds the attempts still out to a target just found unreachable, giving them back.
    private mutating func holdInFlight(to origin: String, why: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let stranded = table.deliveries.compactMap { id, slot -> JobID? in
            let delivery = slot.machine
            guard delivery.inFlight, slot.header.isActive, RequestURL.origin(delivery.request.url) == origin else { return nil }
            return id
        }
        for id in stranded.sorted() {
            if let action = table.deliveries[id]?.machine.strand(why) { perform(action, for: id, at: now, into: &effects) }
        }
    }

    /// A request job's target showed it is reachable: its held jobs resume in the order they were
    /// held, each in the target's next catch-up slot (`CatchupPacer`), so they do not arrive as one burst.
    mutating func targetReachable(of id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard !network.isEmpty, let origin = table.deliveries[id]?.machine.origin, let released = network.release(origin) else { return }
        let rate = configuration.catchupRate
        var last = now.instant
        for held in released {
            guard table[held]?.isActive == true, table.deliveries[held]?.machine.held == true else { continue }
            last = catchup.take(origin, at: now.instant, rate: rate)
            // This slot is its catch-up: an overdue `on_expire` request held on the way takes no second one.
            table.deliveries[held]?.machine.catchUp = false
            if let action = table.deliveries[held]?.machine.release(at: last) { perform(action, for: held, at: now, into: &effects) }
        }
        let over = DurationText.format(nanoseconds: last.nanoseconds(since: now.instant))
        effects.append(.notice("\(origin) answers again; resuming \(released.count) held request jobs over \(over)"))
        if network.isEmpty {
            timers.remove(.probe)
            effects.append(.notice("every unreachable target answers again; the network is back"))
        }
    }

    /// Sends one held job per unreachable target as a probe: on a network change, and on the probe timer.
    mutating func probeRound(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        for id in network.takeProbes() {
            guard table[id]?.isActive == true, let action = table.deliveries[id]?.machine.release(at: now.instant) else { continue }
            perform(action, for: id, at: now, into: &effects)
            advance(id, at: now, into: &effects)
        }
    }

    /// The probe timer: a round, then the next one after a doubled wait.
    mutating func probeTimerFired(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard !network.isEmpty else { return }
        probeRound(at: now, into: &effects)
        network.probeDelay = min(network.probeDelay * 2, max(NetworkHold.firstProbeDelay, configuration.probeMaxNanos))
        timers.set(.probe, priority: now.instant.advanced(by: network.probeDelay))
    }

    /// Lets go of a request job that ended while held or out as a probe.
    mutating func forgetHold(_ id: JobID) {
        guard !network.isEmpty, let slot = table.deliveries[id] else { return }
        network.forget(id, owner: slot.header.owner, origin: slot.machine.origin)
        if network.isEmpty { timers.remove(.probe) }
    }
}
