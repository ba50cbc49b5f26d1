import ReqdProtocol

extension Scheduler {
    /// Rebuilds jobs read from the store; active ones resume with their true remaining time.
    ///
    /// Deadlines that passed while the daemon was down are due at once and expire with `late_by`.
    /// Nothing starts here: every restored job waits for the timer's first fire, so a restart
    /// with many jobs is one pass over the rows.
    mutating func restore(_ records: [JobRecord], at now: ClockReading, into effects: inout [SchedulerEffect]) {
        // Sorted through indices: moving whole records while sorting a million of them was once the
        // largest cost of starting up.
        let order = records.indices.sorted { (records[$0].createdAt, records[$0].id) < (records[$1].createdAt, records[$1].id) }
        table.reserve(for: records)
        timers.reserveCapacity(timers.count + records.count)
        // Ids are unique in the store, so only jobs already in memory can collide.
        let checkCollisions = table.count > 0
        var ended: [(Job, WallTime)] = []
        var tally = CountTally()
        for index in order {
            let record = records[index]
            if checkCollisions, table[JobID(record.id)] != nil { continue }
            // An id names its kind; a row whose id does not was not written by reqd.
            guard JobID(record.id).kind == record.kind,
                let job = Job(record, at: now, maxPollBackoff: configuration.maxPollBackoffNanos)
            else { continue }
            if job.createdAt > lastCreatedAt { lastCreatedAt = job.createdAt }
            guard job.state == .active else {
                ended.append((job, record.endedAt ?? record.createdAt))
                continue
            }
            if let key = job.key, let holder = table.claimKey(key, owner: job.owner, for: job.id) {
                finish(holder, as: .cancelled, reason: .superseded, replacedBy: job.id, at: now, into: &effects)
                table.assignKey(key, owner: job.owner, to: job.id)
            }
            table.insertRestored(job, tally: &tally)
            if let fire = plannedFire(of: job, at: now) { timers.set(.job(job.id), priority: fire) }
        }
        ended.sort { ($0.1, $0.0.id) < ($1.1, $1.0.id) }
        for (job, endedAt) in ended {
            table.insertRestored(job, tally: &tally)
            if job.state == .dead {
                timers.set(.job(job.id), priority: now.instant(at: endedAt).advanced(by: configuration.deadRetentionNanos))
            } else {
                table.retain(job.id, endedAt: now.instant(at: endedAt))
            }
        }
        tally.flush(to: &table)
    }

    /// When a restored job first needs the timer.
    private func plannedFire(of job: Job, at now: ClockReading) -> Instant? {
        switch job.work {
        case .countdown(let countdown): countdown.nextFire(at: now.instant, watched: subscriptions.isWatched(job.header))
        case .poll(let poll): poll.nextFire
        case .request(let delivery): delivery.nextFire
        case .group(let group): group.nextFire
        }
    }
}
