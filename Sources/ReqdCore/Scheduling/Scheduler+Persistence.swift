import ReqdProtocol

extension Scheduler {
    /// The store's row for a job, with its deadline projected onto the wall clock.
    func record(of job: Job, at now: ClockReading) -> JobRecord {
        JobRecord(
            id: job.id.rawValue, owner: job.owner, kind: job.kind, state: job.state, key: job.key, scope: job.scope,
            createdAt: job.createdAt, endedAt: job.endedAt, reason: job.reason, replacedBy: job.replacedBy?.rawValue,
            deadline: job.countdown.map { now.wall(at: $0.deadline) }, tickNanos: job.countdown?.tick,
            lateByNanos: job.countdown?.lateBy,
            detail: JobDetail(
                poll: job.poll.map { PollRecord($0, at: now) }, request: job.delivery.map { DeliveryRecord($0, at: now) },
                group: job.group.map { GroupRecord($0, at: now) },
                onExpire: job.countdown?.onExpire.map { DeliverySettings($0.value) },
                spawned: job.countdown?.spawned?.rawValue, result: job.result, error: job.error))
    }

    /// Finishes what waited for a commit: starts staged jobs and sends held replies, or refuses them.
    mutating func completeCommit(
        _ token: CommitToken, failure: String?, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        guard let pending = pendingCommits.removeValue(forKey: token) else { return }
        switch pending {
        case .registration(let job, let connection, let requestID, let follow):
            staged[job.id] = nil
            if let failure {
                forgetDedupe(job.id)
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(SchedulerError(.storageUnavailable, "the job was not stored, so it was not accepted: \(failure)"))))
            } else {
                let follower = follow ? Recipient(connection: connection, watch: requestID) : nil
                let body = activate(job, follower: follower, at: now, into: &effects)
                effects.append(.reply(connection, requestID, .success(body)))
            }
        case .spawn(let job):
            // Started even when the write failed: a request sent without a row can only be sent
            // again after a restart (the countdown expires again), never lost.
            staged[job.id] = nil
            if let failure { effects.append(.debug(job.id, "the request job was not stored: \(failure)")) }
            _ = activate(job, follower: nil, at: now, into: &effects)
        case .duplicate(let connection, let requestID, let id, let follow):
            guard failure == nil, let job = jobs[id] else {
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(
                            SchedulerError(
                                .storageUnavailable, "the identical request this one repeats was not stored: \(failure ?? "")"))))
                return
            }
            effects.append(.reply(connection, requestID, .success(duplicateReply(job, connection, requestID, follow: follow, at: now))))
        case .reply(let connection, let requestID, let result):
            if let failure {
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(
                            SchedulerError(
                                .storageUnavailable,
                                "the change took effect but could not be written, so a restart may undo it: \(failure)"))))
            } else {
                effects.append(.reply(connection, requestID, result))
            }
        }
    }

    /// Rebuilds jobs read from the store; active ones resume with their true remaining time.
    ///
    /// Deadlines that passed while the daemon was down are due at once and expire with `late_by`.
    mutating func restore(_ records: [JobRecord], at now: ClockReading, into effects: inout [SchedulerEffect]) {
        // Sorted through indices: moving whole records while sorting a million of them was once the
        // largest cost of starting up.
        let order = records.indices.sorted { (records[$0].createdAt, records[$0].id) < (records[$1].createdAt, records[$1].id) }
        jobs.reserveCapacity(jobs.count + records.count)
        timers.reserveCapacity(timers.count + records.count)
        activeByKey.reserveCapacity(activeByKey.count + records.reduce(0) { $0 + ($1.key == nil ? 0 : 1) })
        // Ids are unique in the store, so only jobs already in memory can collide.
        let checkCollisions = !jobs.isEmpty
        var ended: [(Job, WallTime)] = []
        var tally = CountTally()
        for index in order {
            let record = records[index]
            let detail = record.detail
            if checkCollisions, jobs[JobID(record.id)] != nil { continue }
            let work: Job.Work
            switch record.kind {
            case .countdown:
                guard let deadline = record.deadline, let tick = record.tickNanos, tick > 0 else { continue }
                let expiry = now.instant(at: deadline)
                work = .countdown(
                    Countdown(
                        deadline: expiry, tick: tick, lateBy: record.lateByNanos,
                        onExpire: detail.onExpire.map { Box($0.delivery(firstAttempt: expiry)) },
                        spawned: detail.spawned.map(JobID.init)))
            case .poll:
                guard let poll = detail.poll?.resumed(at: now, maxBackoff: configuration.maxPollBackoffNanos)
                else { continue }
                work = .poll(poll)
            case .request:
                guard let delivery = detail.request?.resumed(at: now) else { continue }
                work = .request(delivery)
            case .group:
                guard let group = detail.group?.resumed(at: now) else { continue }
                work = .group(group)
            }
            let job = Job(
                id: JobID(record.id), owner: record.owner, key: record.key, scope: record.scope, durable: true,
                createdAt: record.createdAt, state: record.state, endedAt: record.endedAt, reason: record.reason,
                replacedBy: record.replacedBy.map(JobID.init), result: detail.result, error: detail.error,
                work: work)
            if job.state == .active {
                if let key = job.key {
                    // Claims the key when it is free, as it almost always is, in one lookup.
                    let owned = OwnedKey(owner: job.owner, key: key)
                    let holder = activeByKey.claim(owned, default: job.id)
                    if holder != job.id {
                        if let old = jobs[holder] {
                            finish(old, as: .cancelled, reason: .superseded, replacedBy: job.id, at: now, into: &effects)
                        }
                        activeByKey[owned] = job.id
                    }
                }
                jobs[job.id] = job
                if let scope = job.scope { activeByScope[scope, default: []].insert(job.id) }
                tally.add(job, to: &self)
                schedule(job, at: now, startIfDue: false, into: &effects)
            } else {
                ended.append((job, record.endedAt ?? record.createdAt))
            }
        }
        ended.sort { ($0.1, $0.0.id) < ($1.1, $1.0.id) }
        for (job, endedAt) in ended {
            jobs[job.id] = job
            tally.add(job, to: &self)
            if job.state == .dead {
                timers.set(.job(job.id), priority: now.instant(at: endedAt).advanced(by: configuration.deadRetentionNanos))
            } else {
                retain(job.id, endedAt: now.instant(at: endedAt), at: now, into: &effects)
            }
        }
        tally.flush(to: &self)
        purgeExpiredRetention(at: now, into: &effects)
    }

    /// Counts restored jobs in runs of one owner, kind and state: a million restored jobs then
    /// cost a handful of updates of the nested counts instead of three lookups each.
    struct CountTally {
        private var run: (owner: UInt32, kind: JobKind, state: JobState, count: Int)?

        mutating func add(_ job: Job, to scheduler: inout Scheduler) {
            if let current = run, current.owner == job.owner, current.kind == job.kind, current.state == job.state {
                run?.count += 1
                return
            }
            flush(to: &scheduler)
            run = (job.owner, job.kind, job.state, 1)
        }

        mutating func flush(to scheduler: inout Scheduler) {
            guard let current = run else { return }
            scheduler.adjustCount(owner: current.owner, kind: current.kind, state: current.state, by: current.count)
            run = nil
        }
    }

    /// Removes an ended job from memory and from the store.
    mutating func forgetJob(_ id: JobID, into effects: inout [SchedulerEffect]) {
        guard let job = jobs.removeValue(forKey: id) else { return }
        timers.remove(.job(id))
        adjustCount(owner: job.owner, kind: job.kind, state: job.state, by: -1)
        if job.durable { effects.append(.persist(.delete(id.rawValue))) }
    }

    /// Keeps an ended job visible for the retention period.
    mutating func retain(_ id: JobID, endedAt: Instant, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        retained.append((id, endedAt))
        enforceRetentionLimit(at: now, into: &effects)
    }

    /// Drops the oldest ended jobs beyond the retained-job limit.
    mutating func enforceRetentionLimit(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        while retained.count - retainedHead > configuration.maxRetainedJobs {
            dropOldestRetained(into: &effects)
        }
    }

    /// Drops ended jobs whose retention has passed.
    mutating func purgeExpiredRetention(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        while retainedHead < retained.count,
            retained[retainedHead].endedAt.advanced(by: configuration.retentionNanos) <= now.instant
        {
            dropOldestRetained(into: &effects)
        }
    }

    private mutating func dropOldestRetained(into effects: inout [SchedulerEffect]) {
        let (id, _) = retained[retainedHead]
        retainedHead += 1
        // A job put back by `retry` since it ended is live again: its old entry no longer counts.
        if let job = jobs[id], job.state != .active, job.state != .dead {
            forgetJob(id, into: &effects)
        }
        if retainedHead > 1024, retainedHead * 2 > retained.count {
            retained.removeFirst(retainedHead)
            retainedHead = 0
        }
    }
}
