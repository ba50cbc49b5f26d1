import ReqdProtocol

extension Scheduler {
    /// Holds a request job whose attempt found no route to its target; the attempt does not count.
    mutating func hold(_ id: JobID, why: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard var job = jobs[id], job.state == .active, var delivery = job.delivery else { return }
        delivery.held = true
        delivery.inFlight = false
        delivery.requestDeadline = nil
        delivery.lastError = why
        job.delivery = delivery
        jobs[id] = job
        timers.remove(.job(id))
        let origin = delivery.origin
        let wasOnline = network.isEmpty
        if network.hold(id, origin: origin, why: why, at: now.instant) {
            effects.append(.notice("\(origin) is unreachable (\(why)); holding its request jobs until it answers"))
            holdInFlight(to: origin, why: why, at: now, into: &effects)
        }
        if wasOnline { timers.set(.probe, priority: now.instant.advanced(by: network.probeDelay)) }
        let recipients = recipients(of: job)
        if !recipients.isEmpty {
            var event = makeEvent(.held, job, at: now)
            event.error = why
            effects.append(.deliver(event, to: recipients))
        }
    }

    /// Aborts and holds the attempts still out to a target just found unreachable, giving them back.
    ///
    /// Such an attempt can no longer be answered. It often rides a pooled connection opened
    /// before the route went, which would otherwise hang until the request timeout and then
    /// spend the attempt. Like any attempt in flight, it may have reached the target; it is sent
    /// again later (at least once).
    private mutating func holdInFlight(to origin: String, why: String, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let stranded = jobs.values.compactMap { job -> (JobID, UInt32)? in
            guard job.state == .active, let delivery = job.delivery, delivery.inFlight,
                RequestURL.origin(delivery.request.url) == origin
            else { return nil }
            return (job.id, delivery.attempts)
        }
        for (id, attempt) in stranded.sorted(by: { $0.0 < $1.0 }) {
            effects.append(.abort(id, attempt: attempt))
            jobs[id]?.delivery?.attempts -= 1
            hold(id, why: why, at: now, into: &effects)
        }
    }

    /// Why a due attempt of `id` must wait: its target is held and `id` is not its probe; nil when it may go.
    func holdReason(_ id: JobID, _ delivery: Delivery) -> String? {
        guard !network.isEmpty else { return nil }
        return network.holdReason(delivery.origin, except: id)
    }

    /// A request job's target showed it is reachable: its held jobs resume, spread at random over
    /// `resumeSpreadNanos` so they do not arrive as one burst.
    mutating func targetReachable(_ delivery: Delivery, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard !network.isEmpty else { return }
        let origin = delivery.origin
        guard let released = network.release(origin) else { return }
        let spread = configuration.resumeSpreadNanos
        for id in released {
            guard var job = jobs[id], job.state == .active, job.delivery?.held == true else { continue }
            let at = now.instant.advanced(by: Int64(Double(spread) * random.unit()))
            job.delivery?.held = false
            job.delivery?.nextAttempt = at
            jobs[id] = job
            timers.set(.job(id), priority: at)
        }
        let over = DurationText.format(nanoseconds: spread)
        effects.append(.notice("\(origin) answers again; resuming \(released.count) held request jobs over \(over)"))
        if network.isEmpty {
            timers.remove(.probe)
            effects.append(.notice("every unreachable target answers again; the network is back"))
        }
    }

    /// Sends one held job per unreachable target as a probe: on a network change, and on the probe timer.
    mutating func probeRound(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        for id in network.takeProbes() {
            guard var job = jobs[id], job.state == .active else { continue }
            job.delivery?.held = false
            job.delivery?.nextAttempt = now.instant
            jobs[id] = job
            scheduleDelivery(id, at: now, startIfDue: true, into: &effects)
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
    mutating func forgetHold(_ job: Job) {
        guard !network.isEmpty, let delivery = job.delivery else { return }
        network.forget(job.id, origin: delivery.origin)
        if network.isEmpty { timers.remove(.probe) }
    }

    /// The network part of the daemon summary, counting only the jobs `peer` may see.
    func networkSummary(for peer: Peer, at now: ClockReading) -> NetworkSummary {
        guard let since = network.offlineSince else { return NetworkSummary(state: .online) }
        let held = network.allJobs.filter { jobs[$0].map { peer.mayAccess(ownerUID: $0.owner) } ?? false }.count
        return NetworkSummary(
            state: .offline, offlineSince: now.wall(at: since), heldJobs: held, unreachableTargets: network.targets.count)
    }

    /// Held request jobs and probes, for the daemon's status line.
    public var heldJobCount: Int { network.jobCount }
}
