import ReqdProtocol

/// Bulk loading at start-up, where a million jobs in a row make every hash lookup count.
extension JobTable {
    /// Makes room at once for `total` jobs shaped like `jobs` (the first of the chunks a restore
    /// reads), so a bulk load does not grow the tables step by step.
    mutating func reserve(for jobs: some Collection<Job>, scaledTo total: Int) {
        var kinds: [JobKind: Int] = [:]
        var keys = 0
        for job in jobs {
            kinds[job.kind, default: 0] += 1
            if job.key != nil { keys += 1 }
        }
        if total > jobs.count, !jobs.isEmpty {
            let scale = Double(total) / Double(jobs.count)
            for (kind, count) in kinds { kinds[kind] = Int((Double(count) * scale).rounded(.up)) }
            keys = Int((Double(keys) * scale).rounded(.up))
        }
        countdowns.reserveCapacity(countdowns.count + kinds[.countdown, default: 0])
        polls.reserveCapacity(polls.count + kinds[.poll, default: 0])
        deliveries.reserveCapacity(deliveries.count + kinds[.request, default: 0])
        groups.reserveCapacity(groups.count + kinds[.group, default: 0])
        schedules.reserveCapacity(schedules.count + kinds[.schedule, default: 0])
        self.keys.reserveCapacity(keys: keys)
    }

    /// Claims its key for a restored active job and files the job under it, in one lookup when
    /// the key is free, as it almost always is; returns the other active job that holds it: the
    /// caller decides which of the two is superseded, and ends it when the restore ends.
    mutating func claimKey(for header: JobHeader) -> JobID? {
        guard let key = header.key else { return nil }
        return keys.claim(OwnedKey(owner: header.owner, key: key), for: ListIndex.entry(header))
    }

    /// Gives `key` to `id`: a restored job whose previous holder is superseded, or the holder
    /// that a job superseded on its way in (`Scheduler.activate`) leaves the key with.
    mutating func assignKey(_ key: String, owner: UInt32, to id: JobID) {
        keys.assign(OwnedKey(owner: owner, key: key), to: id)
    }

    /// Adds a restored job, active (its key already claimed) or ended, counted through `tally`; a
    /// job its key's claim filed already stays filed once.
    mutating func insertRestored(_ job: Job, tally: inout CountTally) {
        place(job)
        listIndex.insert(job.header)
        if let key = job.key { keys.add(ListIndex.entry(job.header), to: OwnedKey(owner: job.owner, key: key), holds: false) }
        if job.state == .active, let scope = job.scope { activeByScope[scope, default: []].insert(job.id) }
        tally.add(job.header, to: &self)
    }
}
