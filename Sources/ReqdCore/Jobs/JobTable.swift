import ReqdProtocol

/// Every job, the indexes over them, the counts the summary shows, and how long ended jobs stay.
///
/// Each kind has a table of its own, keyed by id, whose slots hold a job's header beside its
/// state machine (`JobSlot`): each slot is sized for its kind, and one lookup finds both. A job's
/// id names its kind in its prefix, so finding a job by id is one lookup in one table. The
/// scheduler changes a slot's `machine` in place (`table.polls[id]?.machine.timerFired(…)`); a
/// slot's `header` changes only through the methods here, which keep the key and scope indexes and
/// the counts true. A data machine in the sense of STYLE.md: it keeps its indexes and reports
/// facts; the scheduler decides.
struct JobTable: Sendable {
    /// A key in one owner's namespace.
    struct OwnedKey: ShardKey, Sendable {
        var owner: UInt32
        var key: String
    }

    /// Dense slabs with a sharded index (`JobSlab`): a slot costs about its width, and a table
    /// growing past 100,000 jobs never rehashes them all in one turn.
    var countdowns = JobSlab<Countdown>()
    var polls = JobSlab<Poll>()
    var deliveries = JobSlab<Delivery>()
    var groups = JobSlab<Group>()
    var schedules = JobSlab<Schedule>()

    /// Every job by owner, state, kind and scope, oldest first, for `list`.
    var listIndex = ListIndex()
    /// Each key's holder and jobs, for `list --key` too.
    var keys = KeyIndex()
    var activeByScope: [String: ShardedSet<JobID>] = [:]
    /// Jobs by owner, kind and state, for the summary.
    private(set) var counts: [UInt32: [JobKind: [JobState: Int]]] = [:]
    /// Jobs that have not ended.
    private(set) var liveJobs = 0
    /// Dead letters held, every owner's.
    private(set) var deadLetters = 0
    /// The same, by owner, and each owner's ended jobs that retention keeps: the per-user limits
    /// read them on every registration and every end.
    private var activeByOwner: [UInt32: Int] = [:]
    private var retainedCountByOwner: [UInt32: Int] = [:]
    /// Ended jobs in the order they ended, for retention. They are forgotten as events arrive
    /// (the `.retention` timer only brings the next share when one turn's was not enough), so an
    /// idle daemon never wakes up just to forget old jobs.
    var retained = ChunkedArray<(id: JobID, endedAt: Instant)>()
    /// Entries of `retained` left by jobs that `retry` put back since, by job: each is skipped,
    /// so a job that ends again stays for its whole retention from its last end.
    var staleRetained = ShardedDictionary<JobID, Int>()
    /// How many stale entries `retained` holds in all: they do not count against `maxRetained`.
    var staleRetainedCount = 0
    /// Each owner's entries of `retained`, oldest first, for `UserLimits.retainedJobs`.
    var retainedByOwner: [UInt32: OwnerRetention] = [:]
    /// Owners whose ended jobs grew since the per-owner limit was last looked at.
    var retentionGrew: Set<UInt32> = []

    /// The header of a job.
    subscript(id: JobID) -> JobHeader? {
        switch id.kind {
        case .countdown?: countdowns[id]?.header
        case .poll?: polls[id]?.header
        case .request?: deliveries[id]?.header
        case .group?: groups[id]?.header
        case .schedule?: schedules[id]?.header
        case nil: nil
        }
    }

    /// A whole job as one value: its header and a copy of its machine; see `Job`.
    func job(_ id: JobID) -> Job? {
        switch id.kind {
        case .countdown?: countdowns[id].map { Job(header: $0.header, work: .countdown($0.machine)) }
        case .poll?: polls[id].map { Job(header: $0.header, work: .poll($0.machine)) }
        case .request?: deliveries[id].map { Job(header: $0.header, work: .request($0.machine)) }
        case .group?: groups[id].map { Job(header: $0.header, work: .group($0.machine)) }
        case .schedule?: schedules[id].map { Job(header: $0.header, work: .schedule($0.machine)) }
        case nil: nil
        }
    }

    /// The number of jobs held, active and ended.
    var count: Int { countdowns.count + polls.count + deliveries.count + groups.count + schedules.count }

    /// The requests a job has on the wire now, by attempt number, for aborting them.
    func onWire(_ id: JobID) -> [UInt32] {
        switch id.kind {
        case .countdown?, .schedule?, nil: []
        case .poll?: polls[id].map { $0.machine.inFlight ? [$0.machine.attempts] : [] } ?? []
        case .request?: deliveries[id].map { $0.machine.inFlight ? [$0.machine.attempts] : [] } ?? []
        case .group?: groups[id]?.machine.onWire ?? []
        }
    }

    /// The active job that holds `key` in `owner`'s namespace.
    func holder(ofKey key: String, owner: UInt32) -> JobID? { keys.holder(of: OwnedKey(owner: owner, key: key)) }

    /// The lists a `list` with `filter` merges, for the owners in `owners`. With a key, these are
    /// the key's jobs, of every state, kind and scope: the caller filters them.
    func listLeaves(for filter: ListRequest, owners: some Sequence<UInt32>) -> [SortedChunks<ListIndex.Entry>] {
        guard let key = filter.key else { return listIndex.leaves(for: filter, owners: owners) }
        return owners.compactMap { owner in keys.entries(of: OwnedKey(owner: owner, key: key)).map { SortedChunks(sorted: $0) } }
    }

    /// The active jobs in `scope`.
    func activeJobs(inScope scope: String) -> ShardedSet<JobID> { activeByScope[scope] ?? [] }

    /// Adds a new active job: it takes its key (the caller has ended the job that held it) and
    /// joins its scope and the counts.
    mutating func insert(_ job: Job) {
        place(job)
        let header = job.header
        listIndex.insert(header)
        if let key = header.key { keys.add(ListIndex.entry(header), to: OwnedKey(owner: header.owner, key: key), holds: true) }
        if let scope = header.scope { activeByScope[scope, default: []].insert(header.id) }
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: 1)
    }

    /// Puts a job in its kind's table.
    mutating func place(_ job: Job) {
        switch job.work {
        case .countdown(let countdown): countdowns[job.id] = JobSlot(header: job.header, machine: countdown)
        case .poll(let poll): polls[job.id] = JobSlot(header: job.header, machine: poll)
        case .request(let delivery): deliveries[job.id] = JobSlot(header: job.header, machine: delivery)
        case .group(let group): groups[job.id] = JobSlot(header: job.header, machine: group)
        case .schedule(let schedule): schedules[job.id] = JobSlot(header: job.header, machine: schedule)
        }
    }

    /// Records that an active job ended: it leaves its key and scope, and the counts move.
    mutating func end(_ id: JobID, as state: JobState, reason: EventReason?, replacedBy: JobID?, at now: WallTime) {
        let ended = modifyHeader(id) { header -> JobHeader? in
            guard header.state == .active else { return nil }
            header.state = state
            header.reason = reason
            header.replacedBy = replacedBy
            header.endedAt = now
            return header
        }
        guard let header = ended.flatMap({ $0 }) else { return }
        listIndex.move(header, from: .active)
        if let key = header.key { keys.release(OwnedKey(owner: header.owner, key: key), heldBy: id) }
        if let scope = header.scope {
            activeByScope[scope]?.remove(id)
            if activeByScope[scope]?.isEmpty == true { activeByScope[scope] = nil }
        }
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: -1)
        adjustCount(owner: header.owner, kind: header.kind, state: state, by: 1)
    }

    /// Makes an ended job active again (`retry`): it rejoins its scope, and its key when that is free.
    mutating func reactivate(_ id: JobID) {
        let before = modifyHeader(id) { header -> JobHeader? in
            guard header.state != .active else { return nil }
            let before = header
            header.state = .active
            header.endedAt = nil
            header.error = nil
            header.result = nil
            return before
        }
        guard let header = before.flatMap({ $0 }) else { return }
        if let now = self[id] { listIndex.move(now, from: header.state) }
        leaveRetention(id, endedIn: header.state)
        adjustCount(owner: header.owner, kind: header.kind, state: header.state, by: -1)
        adjustCount(owner: header.owner, kind: header.kind, state: .active, by: 1)
        if let scope = header.scope { activeByScope[scope, default: []].insert(id) }
        if let key = header.key { _ = keys.claim(OwnedKey(owner: header.owner, key: key), for: ListIndex.entry(header)) }
    }

    /// Forgets the answer a job kept: its last attempt ended without one.
    mutating func clearResult(_ id: JobID) {
        guard self[id]?.result != nil else { return }
        modifyHeader(id) { $0.result = nil }
    }

    /// Changes what a job's header says of its latest answer and of why it failed.
    mutating func update(_ id: JobID, result: HTTPResult?, error: String?) {
        guard result != nil || error != nil else { return }
        modifyHeader(id) { header in
            if let result { header.result = result }
            if let error { header.error = error }
        }
    }

    /// Forgets a job; returns its header.
    @discardableResult
    mutating func remove(_ id: JobID) -> JobHeader? {
        let header: JobHeader?
        switch id.kind {
        case .countdown?: header = countdowns.removeValue(forKey: id)?.header
        case .poll?: header = polls.removeValue(forKey: id)?.header
        case .request?: header = deliveries.removeValue(forKey: id)?.header
        case .group?: header = groups.removeValue(forKey: id)?.header
        case .schedule?: header = schedules.removeValue(forKey: id)?.header
        case nil: header = nil
        }
        guard let header else { return nil }
        listIndex.remove(header)
        if let key = header.key { keys.remove(ListIndex.entry(header), from: OwnedKey(owner: header.owner, key: key)) }
        adjustCount(owner: header.owner, kind: header.kind, state: header.state, by: -1)
        return header
    }

    /// The owners with jobs held, for root's `list`: an owner whose jobs are all forgotten keeps
    /// its (zero) counts, but has no leaves to look up.
    var owners: [UInt32] {
        counts.compactMap { owner, kinds in kinds.values.contains { $0.values.contains { $0 > 0 } } ? owner : nil }
    }

    /// Job counts by kind and state over the owners `peer` may see, every kind and state listed.
    func counts(visibleTo peer: Peer) -> [String: [String: Int]] {
        var byKind: [String: [String: Int]] = [:]
        for kind in JobKind.allCases {
            byKind[kind.rawValue] = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, 0) })
        }
        for (owner, kinds) in counts where peer.mayAccess(ownerUID: owner) {
            for (kind, states) in kinds {
                for (state, count) in states {
                    byKind[kind.rawValue, default: [:]][state.rawValue, default: 0] += count
                }
            }
        }
        return byKind
    }

    /// `owner`'s active jobs, of every kind.
    func activeJobs(ownedBy owner: UInt32) -> Int { activeByOwner[owner] ?? 0 }

    /// `owner`'s ended jobs that retention keeps: every end but `dead` (dead letters have their own).
    func retainedJobs(ownedBy owner: UInt32) -> Int { retainedCountByOwner[owner] ?? 0 }

    mutating func adjustCount(owner: UInt32, kind: JobKind, state: JobState, by delta: Int) {
        counts[owner, default: [:]][kind, default: [:]][state, default: 0] += delta
        switch state {
        case .active:
            liveJobs += delta
            activeByOwner[owner, default: 0] += delta
        case .dead:
            deadLetters += delta
        default:
            retainedCountByOwner[owner, default: 0] += delta
        }
    }

    /// Shrinks the counts by owner.
    mutating func shrinkCounts(_ budget: inout ShrinkBudget) -> Bool {
        counts.shrink(&budget) && activeByOwner.shrink(&budget) && retainedCountByOwner.shrink(&budget)
    }

    /// Runs `body` on a job's header in place, in its kind's table.
    @discardableResult
    private mutating func modifyHeader<R>(_ id: JobID, _ body: (inout JobHeader) -> R) -> R? {
        switch id.kind {
        case .countdown?: countdowns[id]?.withHeader(body)
        case .poll?: polls[id]?.withHeader(body)
        case .request?: deliveries[id]?.withHeader(body)
        case .group?: groups[id]?.withHeader(body)
        case .schedule?: schedules[id]?.withHeader(body)
        case nil: nil
        }
    }
}
