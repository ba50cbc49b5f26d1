/// The HTTP requests on the wire, by owner, and the jobs waiting for one of their owner's
/// requests to end (`UserLimits.requestsInFlight`).
///
/// Every `.send` the scheduler emits is entered, and every end of one (an answer, an abort, the
/// job's end) leaves it once: a request is keyed by job and attempt, so a late answer to an
/// aborted request finds nothing to leave and cannot free a slot twice.
struct WireLedger: Sendable {
    private struct Key: ShardKey {
        var job: JobID
        var attempt: UInt32
        var shardBits: UInt { job.shardBits }
    }

    /// Jobs waiting for a slot of one owner, in the order they came.
    fileprivate struct Queue {
        var jobs = ChunkedArray<JobID>()
        var members = ShardedSet<JobID>()
        var count: Int { jobs.count }
    }

    private var owners = ShardedDictionary<Key, UInt32>()
    private var attemptsByJob = ShardedDictionary<JobID, [UInt32]>()
    private var inFlightByOwner: [UInt32: Int] = [:]
    private var waiting: [UInt32: Queue] = [:]

    /// Owners that had a request end while jobs of theirs wait: the scheduler looks at them after
    /// the event.
    private(set) var freed: Set<UInt32> = []

    /// Whether any request is on the wire.
    var isEmpty: Bool { owners.isEmpty }

    /// Requests `owner` has on the wire.
    func inFlight(_ owner: UInt32) -> Int { inFlightByOwner[owner] ?? 0 }

    /// Jobs of `owner` waiting for a slot.
    func waitingCount(_ owner: UInt32) -> Int { waiting[owner]?.count ?? 0 }

    /// A request went on the wire.
    mutating func sent(_ job: JobID, attempt: UInt32, owner: UInt32) {
        guard owners.updateValue(owner, forKey: Key(job: job, attempt: attempt)) == nil else { return }
        attemptsByJob[job, default: []].append(attempt)
        inFlightByOwner[owner, default: 0] += 1
    }

    /// A request left the wire: answered, failed or aborted.
    mutating func ended(_ job: JobID, attempt: UInt32) {
        guard let owner = owners.removeValue(forKey: Key(job: job, attempt: attempt)) else { return }
        if var attempts = attemptsByJob[job] {
            attempts.removeAll { $0 == attempt }
            attemptsByJob[job] = attempts.isEmpty ? nil : attempts
        }
        release(owner)
    }

    /// A job ended: whatever it still had on the wire leaves with it, and it waits no more.
    mutating func jobEnded(_ job: JobID) {
        for attempt in attemptsByJob.removeValue(forKey: job) ?? [] {
            if let owner = owners.removeValue(forKey: Key(job: job, attempt: attempt)) { release(owner) }
        }
    }

    /// Puts `job` in line for one of `owner`'s slots, once.
    mutating func wait(_ job: JobID, owner: UInt32) {
        guard waiting[owner, default: Queue()].members.insert(job).inserted else { return }
        waiting[owner]?.jobs.append(job)
    }

    /// Takes the job that has waited longest for one of `owner`'s slots.
    mutating func nextWaiting(_ owner: UInt32) -> JobID? {
        guard let job = waiting[owner]?.jobs.popFirst() else { return nil }
        waiting[owner]?.members.remove(job)
        if waiting[owner]?.count == 0 { waiting[owner] = nil }
        return job
    }

    /// Marks every owner with jobs in line to be looked at (the limits changed).
    mutating func markWaitingFreed() {
        freed.formUnion(waiting.keys)
    }

    /// Clears the owners left to look at.
    mutating func takeFreed() -> Set<UInt32> {
        defer { freed = [] }
        return freed
    }

    private mutating func release(_ owner: UInt32) {
        inFlightByOwner.countDown(owner)
        if waiting[owner] != nil { freed.insert(owner) }
    }
}

extension WireLedger: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        owners.shrink(&budget) && attemptsByJob.shrink(&budget) && inFlightByOwner.shrink(&budget)
            && waiting.shrinkWithValues(&budget) && freed.shrink(&budget)
    }
}

extension WireLedger.Queue: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        jobs.shrink(&budget) && members.shrink(&budget)
    }
}
