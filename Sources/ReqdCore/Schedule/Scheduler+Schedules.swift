import ReqdProtocol

/// Schedules' elapses, their runs, pausing, and planning again after a clock step.
///
/// A run is a request job of its own, started from the schedule's request with the schedule as
/// its parent; its end comes back through `scheduleRunEnded`, which may start a queued run.
extension Scheduler {
    /// A schedule's timer entry came due: the elapse, what it starts, and the next entry.
    mutating func scheduleFired(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let firing = table.schedules[id]?.machine.timerFired(at: now, id: id, random: &random) else { return }
        switch firing {
        case .early, .idle:
            break
        case .run(let lateBy, let missed, let replacing):
            // The new run first: the replaced one's end then finds it no longer the schedule's run.
            let run = startRun(of: id, late: lateBy > CatchupPacer.overdueAfter, at: now, into: &effects)
            if let replacing { supersedeRun(replacing, by: run, at: now, into: &effects) }
            elapsed(id, run: .started, spawned: run, lateBy: lateBy, missed: missed, at: now, into: &effects)
        case .elapsed(let lateBy, let missed):
            elapsed(id, run: ScheduleRun.none, spawned: nil, lateBy: lateBy, missed: missed, at: now, into: &effects)
        case .skipped(let lateBy, let missed):
            elapsed(id, run: .skipped, spawned: nil, lateBy: lateBy, missed: missed, at: now, into: &effects)
        case .queued(let lateBy, let missed):
            elapsed(id, run: .queued, spawned: nil, lateBy: lateBy, missed: missed, at: now, into: &effects)
        case .missed(let count, let lateBy):
            elapsed(id, run: .missed, spawned: nil, lateBy: lateBy, missed: count, at: now, into: &effects)
        }
        if firing != .early { persistSchedule(id, at: now, into: &effects) }
        advance(id, at: now, into: &effects)
    }

    /// Starts one run of a schedule: its request as a job of its own. Returns the job's id.
    private mutating func startRun(of id: JobID, late: Bool, at now: ClockReading, into effects: inout [SchedulerEffect]) -> JobID? {
        guard let parent = table[id], parent.isActive, let template = table.schedules[id]?.machine.request?.value else { return nil }
        let run = spawnedJob(template, of: parent, catchUp: late, at: now)
        table.schedules[id]?.machine.runStarted(run.id)
        start(run, at: now, into: &effects)
        return run.id
    }

    /// Tells a schedule's watchers that it elapsed, and what came of it.
    private mutating func elapsed(
        _ id: JobID, run: ScheduleRun, spawned: JobID?, lateBy: Int64, missed: Int, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard let header = table[id] else { return }
        let recipients = subscriptions.recipients(of: header)
        guard !recipients.isEmpty, var event = event(.elapsed, of: id, at: now) else { return }
        event.run = run
        event.spawned = spawned?.rawValue
        event.lateByMs = Double(lateBy) / 1e6
        event.missed = missed
        effects.append(.deliver(event, to: recipients))
    }

    /// Ends a run that a newer one replaced (`overlap: replace`). One whose row is still being
    /// written ends as soon as that write is done, before it sends anything.
    private mutating func supersedeRun(_ run: JobID, by newer: JobID?, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if commits.isStaged(run) {
            commits.endWhenCommitted(run, .superseded(newer))
        } else {
            finish(run, as: .cancelled, reason: .superseded, replacedBy: newer, at: now, into: &effects)
        }
    }

    /// A run's request job ended: the schedule records how, starts a queued run, and ends when
    /// its rule has no elapse left. A schedule that has ended (cancelled without `abort`) records
    /// the outcome of the run it let go on, and starts nothing.
    mutating func scheduleRunEnded(_ id: JobID, run: JobID, as state: JobState, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let header = table[id] else { return }
        guard header.isActive else {
            if table.schedules[id]?.machine.runEnded(run, as: state, startsQueued: false) != .notCurrent {
                persistSchedule(id, at: now, into: &effects)
            }
            return
        }
        guard let end = table.schedules[id]?.machine.runEnded(run, as: state) else { return }
        if end == .startQueued {
            // The elapse that waited was told as `queued`; its run starting is told now.
            let next = startRun(of: id, late: false, at: now, into: &effects)
            elapsed(id, run: .started, spawned: next, lateBy: 0, missed: 0, at: now, into: &effects)
        }
        persistSchedule(id, at: now, into: &effects)
        if end != .notCurrent { advance(id, at: now, into: &effects) }
    }

    /// `pause` and `resume`: stops or starts again the schedules a selector names.
    mutating func setPaused(
        _ paused: Bool, _ selector: JobSelector, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let targets: [JobID]
        switch resolve(selector, peer: peer) {
        case .failure(let error): return .failure(error)
        case .success(let ids): targets = ids.filter { table[$0]?.isActive == true && $0.kind == .schedule }
        }
        if selector.job != nil, targets.isEmpty {
            return .failure(SchedulerError(.badField, "'\(selector.job ?? "")' is not an active schedule"))
        }
        var touchedDisk = false
        let changed = targets.filter { table.schedules[$0]?.machine.paused != paused }
        for id in changed {
            if paused {
                table.schedules[id]?.machine.pause()
            } else {
                table.schedules[id]?.machine.resume(at: now, id: id, random: &random)
            }
            if let header = table[id] {
                touchedDisk = touchedDisk || header.durable
                let recipients = subscriptions.recipients(of: header)
                if !recipients.isEmpty, let event = event(paused ? .paused : .resumed, of: id, at: now) {
                    effects.append(.deliver(event, to: recipients))
                }
            }
            persistSchedule(id, at: now, into: &effects)
            advance(id, at: now, into: &effects)
        }
        let result = Result<ReplyBody, SchedulerError>.success(.cancelled(CancelResult(cancelled: changed.lazy.map(\.rawValue))))
        guard touchedDisk else { return result }
        effects.append(.commitBarrier(commits.barrier(.reply(connection, requestID, result))))
        return nil
    }

    /// The wall clock was stepped: every schedule plans its pending elapse again, and re-arms.
    mutating func replanSchedules(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        for id in Array(table.schedules.keys) where table[id]?.isActive == true {
            if table.schedules[id]?.machine.replan(at: now, id: id, random: &random) == true {
                persistSchedule(id, at: now, into: &effects)
            }
            advance(id, at: now, into: &effects)
        }
    }

    /// The local zone changed: schedules given no zone take the new one and plan again.
    mutating func rezoneLocalSchedules(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        let zone = zones.local()
        for id in Array(table.schedules.keys) where table[id]?.isActive == true && table.schedules[id]?.machine.followsLocalZone == true {
            table.schedules[id]?.machine.rezone(zone, rules: &scheduleRules)
            if table.schedules[id]?.machine.replan(at: now, id: id, random: &random) == true {
                persistSchedule(id, at: now, into: &effects)
            }
            advance(id, at: now, into: &effects)
        }
    }

    /// After a restore: a schedule whose run's request job is gone, or ended while the daemon was
    /// down, forgets it, so that its next elapse is not taken for an overlap.
    /// A queued run starts now; the schedule ends if its rule has no elapse left.
    ///
    /// One pass over the schedules finds those with a run: looking each one up by id, and
    /// copying its slot twice, cost a restart of 1,000,000 schedules about 0.7 s.
    mutating func settleScheduleRuns(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        var runs: [(id: JobID, run: JobID)] = []
        for (id, slot) in table.schedules {
            if let run = slot.machine.running { runs.append((id, run)) }
        }
        for (id, run) in runs where table[id]?.isActive == true {
            // A run whose row is still being written (a takeover while this daemon runs) goes on.
            guard table[run]?.isActive != true, !commits.isStaged(run) else { continue }
            scheduleRunEnded(id, run: run, as: table[run]?.state ?? .cancelled, at: now, into: &effects)
        }
    }

    /// A schedule's run was retried by hand: it becomes the active schedule's run again, when no
    /// newer run has started.
    mutating func scheduleRunRetried(_ id: JobID, run: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard table[id]?.isActive == true, table.schedules[id]?.machine.runRetried(run) == true else { return }
        persistSchedule(id, at: now, into: &effects)
    }

    /// Writes a durable schedule's changing columns.
    private mutating func persistSchedule(_ id: JobID, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard table[id]?.durable == true, let job = job(id) else { return }
        persistProgress(of: job, at: now, into: &effects)
    }
}
