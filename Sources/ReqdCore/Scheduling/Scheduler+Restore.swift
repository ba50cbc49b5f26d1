import ReqdProtocol

extension Scheduler {
    /// Rebuilds jobs read from the store; active ones resume with their true remaining time.
    ///
    /// Deadlines that passed while the daemon was down are due at once and expire with `late_by`.
    /// Nothing starts here: every restored job waits for the timer's first fire, so a restart
    /// with many jobs is one pass over the rows. The rows may come in several calls, in any
    /// order; `finishRestore` ends the restore, and until then no timer fires or is armed.
    mutating func restore(_ chunk: RestoreChunk, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if restoring == nil {
            // Ids are unique in the store, so only jobs in memory before the restore can collide.
            restoring = RestoreProgress(checkCollisions: table.count > 0)
            table.reserve(for: chunk.jobs.lazy.map(\.job), scaledTo: chunk.expecting)
            timers.reserveCapacity(timers.count + chunk.expecting)
        }
        let checkCollisions = restoring?.checkCollisions ?? true
        restoring?.jobs += chunk.jobs.count
        var tally = CountTally()
        for (read, endedAt) in chunk.jobs {
            if checkCollisions, table[read.id] != nil { continue }
            var job = read
            if case .schedule(var schedule) = job.work {
                schedule.rule = scheduleRules.shared(schedule.rule)
                job.work = .schedule(schedule)
            }
            if job.createdAt > lastCreatedAt { lastCreatedAt = job.createdAt }
            if let endedAt {
                restoring?.ended.append((job, endedAt))
                continue
            }
            if let key = job.key, let holder = table.claimKey(for: job.header) {
                // Two active rows with one key: the newer one holds it, whichever was read first.
                if let held = table[holder], (held.createdAt, held.id) > (job.createdAt, job.id) {
                    restoring?.superseded.append((job.id, holder))
                    table.insertRestored(job, tally: &tally)
                    continue
                }
                restoring?.superseded.append((holder, job.id))
                table.assignKey(key, owner: job.owner, to: job.id)
            }
            table.insertRestored(job, tally: &tally)
            if let fire = plannedFire(of: job, at: now) { timers.set(.job(job.id), priority: fire) }
        }
        tally.flush(to: &table)
    }

    /// Ends a restore: ended jobs join retention (or, as dead letters, the timer) in the order
    /// they ended; then the rows that a newer row with their key superseded end, now. After a
    /// large restore, memory goes back to the system at the first quiet moment (`ShrinkPass`).
    mutating func finishRestore(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let restored = restoring else { return }
        restoring = nil
        var ended = restored.ended
        ended.sort { ($0.1, $0.0.id) < ($1.1, $1.0.id) }
        var tally = CountTally()
        for (job, endedAt) in ended {
            table.insertRestored(job, tally: &tally)
            if job.state == .dead {
                timers.set(.job(job.id), priority: now.instant(at: endedAt).advanced(by: configuration.deadRetentionNanos))
            } else {
                table.retain(job.id, endedAt: now.instant(at: endedAt))
            }
        }
        tally.flush(to: &table)
        for (job, newer) in restored.superseded {
            finish(job, as: .cancelled, reason: .superseded, replacedBy: newer, at: now, into: &effects)
        }
        if !table.schedules.isEmpty { settleScheduleRuns(at: now, into: &effects) }
        if shrinking.restored(restored.jobs, at: now.instant) { timers.set(.shrink, priority: now.instant) }
    }

    /// When a restored job first needs the timer.
    private func plannedFire(of job: Job, at now: ClockReading) -> Instant? {
        switch job.work {
        case .countdown(let countdown): countdown.nextFire(at: now.instant, watched: subscriptions.isWatched(job.header))
        case .poll(let poll): poll.nextFire
        case .request(let delivery): delivery.nextFire
        case .group(let group): group.nextFire
        case .schedule(let schedule): schedule.fireInstant(at: now)
        }
    }
}
