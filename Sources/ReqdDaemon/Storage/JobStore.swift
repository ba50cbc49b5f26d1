import Dispatch
import Foundation
import Glibc
import ReqdCore
import ReqdProtocol
import Synchronization

/// The durable job store, on its own serial queue, over a `StoreBackend` (SQLite or PostgreSQL).
///
/// Batches that arrive while a commit is running are merged into the next transaction (group
/// commit), so durability costs one commit per busy period, not one per job. A batch that no reply
/// waits for (no barrier, no notice) may wait `commitDelayNanos` for a commit that other work
/// makes. After each commit the store reports every barrier of the merged batches as done, or as
/// failed with the reason.
public final class JobStore: @unchecked Sendable {
    // @unchecked Sendable: `backend`, `coding`, `unwritten` and `closed` are touched only on `queue`
    // (asserted here and in JobStore+Cluster.swift, the one other file that reaches them);
    // `pending` is guarded by its Mutex.
    let queue = DispatchQueue(label: "reqd.store")
    let backend: any StoreBackend
    private var coding: StoreCoding
    private let pending = Mutex<(batches: [StoreBatch], scheduled: Drain)>(([], .none))
    /// How long changes that no reply waits for (a job's end, its attempts) wait for a commit that
    /// other work makes, before they make one of their own.
    let commitDelayNanos: Int64
    /// What failed commits left to write again with the next one (`keptOnFailure`), folded to
    /// the latest per job.
    private var unwritten: [StoreChange] = []
    /// Set by `close`: work queued behind it finds the backend closed and does nothing.
    var closed = false
    private let onCommit: @Sendable ([CommitToken], String?) -> Void
    private let metrics: DaemonMetrics?
    private let lease = Mutex<LeaseKeeper?>(nil)

    /// Where the rows are, for logs: the SQLite file's path, or the PostgreSQL address without its
    /// password.
    public let location: String

    /// A store over `backend`, which the store confines to its queue from now on.
    ///
    /// - Parameters:
    ///   - commitDelayNanos: how long a batch that holds no barrier and no notice may wait for a
    ///     commit that other work makes; 0 commits every batch at once.
    ///   - onCommit: called on the store's queue after each transaction with its barriers and nil,
    ///     or with the failure's reason.
    init(
        backend: any StoreBackend, metrics: DaemonMetrics? = nil, commitDelayNanos: Int64 = 0,
        onCommit: @escaping @Sendable ([CommitToken], String?) -> Void
    ) {
        self.backend = backend
        coding = StoreCoding(dialect: backend.dialect)
        location = backend.location
        self.metrics = metrics
        self.onCommit = onCommit
        self.commitDelayNanos = commitDelayNanos
    }

    /// Opens (creating and migrating as needed) the SQLite store in `directory`.
    ///
    /// A file that cannot be opened or read, or that fails the check, is left exactly as it was.
    ///
    /// - Parameters:
    ///   - checkIntegrity: runs `PRAGMA quick_check` first (after a stop that was not clean).
    ///   - onCommit: called on the store's queue after each transaction with its barriers and nil,
    ///     or with the failure's reason.
    public convenience init(
        directory: String, checkIntegrity: Bool = false, metrics: DaemonMetrics? = nil,
        onCommit: @escaping @Sendable ([CommitToken], String?) -> Void
    ) throws(DaemonError) {
        self.init(backend: try SQLiteStoreBackend(directory: directory, checkIntegrity: checkIntegrity), metrics: metrics, onCommit: onCommit)
    }

    /// Keeps this daemon's lease on a store that several daemons share (PostgreSQL); nothing on
    /// SQLite, whose one daemon holds every row. Call it before `load`, so that a long start is
    /// renewed through.
    ///
    /// - Parameters:
    ///   - claimed: the rows taken over from a daemon that left or whose lease expired, on the
    ///     store's queue.
    ///   - heard: what other daemons tell this one through the store, as events for the
    ///     scheduler, in the order they came, on any thread: a job of this daemon's that another
    ///     ended, the end of a job another holds that this one waits for (its row as it ended),
    ///     a watch of a job of this daemon's, an event of a job another holds.
    ///   - lost: called once, on any thread, when the lease is lost: other daemons may run this
    ///     one's jobs from then on, so it must not.
    public func keepLease(
        claimed: @escaping @Sendable ([JobRecord]) -> Void,
        heard: @escaping @Sendable (SchedulerEvent) -> Void = { _ in },
        lost: @escaping @Sendable (DaemonError) -> Void
    ) {
        guard let lease = queue.sync(execute: { (backend as? any LeasedStoreBackend)?.lease }) else { return }
        // The lease is the keeper's from here on; this is its first use, before the keeper exists.
        let claimPending = Atomic<Bool>(false)
        // Claims the free rows on the store's queue; a claim that fails is tried again after the
        // next renewal.
        let claim: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            claimPending.store(true, ordering: .relaxed)
            queue.async {
                guard !self.closed else { return }
                do throws(DaemonError) {
                    var records: [JobRecord] = []
                    try self.backend.claim(all: false) { rows, values throws(DaemonError) in
                        try self.read(rows, values, chunkSize: .max) { chunk, _ in records += chunk }
                    }
                    claimPending.store(false, ordering: .relaxed)
                    if !records.isEmpty {
                        claimed(records)
                        for watch in try self.readRemoteWatches() { heard(watch) }
                    }
                } catch {
                    // Tried again after the next renewal.
                }
            }
        }
        try? lease.listen { [weak self] notice in
            guard let self else { return }
            switch notice {
            case .endedElsewhere(let job, let replacedBy):
                // At once: the job's request in flight is aborted.
                return heard(.endedElsewhere(JobID(job), replacedBy: replacedBy.map(JobID.init)))
            case .daemonLeft:
                // Its rows are free now, not at the next renewal.
                return claim()
            default:
                break
            }
            // The others through the store's queue, behind the answers to this daemon's queries:
            // an event of a job comes after the answer that made its watcher here.
            queue.async {
                switch notice {
                case .endedElsewhere, .daemonLeft:
                    break
                case .waitedJobEnded(let job):
                    self.settleWait(job, heard)
                case .watched(let job, let daemon):
                    heard(.watchedElsewhere(JobID(job), by: daemon))
                case .event(let event):
                    heard(.eventElsewhere(event))
                case .taken(let job):
                    heard(.takenElsewhere(JobID(job)))
                case .unwatched(let job, let daemon):
                    heard(.unwatchedElsewhere(JobID(job), by: daemon))
                }
            }
        }
        let keeper = LeaseKeeper(
            lease: lease,
            takeOver: { [weak self] orphans in
                guard let self else { return }
                // An end whose notice was lost (its connection broke) is found here.
                queue.async { self.settleWaits(heard) }
                if orphans || claimPending.load(ordering: .relaxed) { claim() }
            }, lost: lost)
        self.lease.withLock { $0 = keeper }
    }

    /// The watches other daemons keep on the active jobs this daemon holds, as events for the
    /// scheduler: after a claim or a start, the jobs' new holder streams their events to them.
    public func remoteWatches() throws(DaemonError) -> [SchedulerEvent] {
        try queue.sync { () -> Result<[SchedulerEvent], DaemonError> in
            do throws(DaemonError) { return .success(try readRemoteWatches()) } catch { return .failure(error) }
        }.get()
    }

    private func readRemoteWatches() throws(DaemonError) -> [SchedulerEvent] {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !closed, backend is any LeasedStoreBackend else { return [] }
        var watches: [SchedulerEvent] = []
        try backend.read(
            """
            SELECT w.job, w.daemon FROM waits w JOIN jobs j ON j.id = w.job
            WHERE w.events AND j.state = 'active' AND j.holder = \(StoreDialect.holder) AND w.daemon <> \(StoreDialect.holder)
            """, []
        ) { row in
            if let job = row.text(0), let daemon = row.text(1) { watches.append(.watchedElsewhere(JobID(job), by: daemon)) }
        }
        return watches
    }

    /// Whether this daemon may run its durable jobs now: always on SQLite; on a shared store, while
    /// its lease surely holds. When it does not, the lease is reported lost.
    public func leaseHolds() -> Bool {
        lease.withLock { $0 }?.holds() ?? true
    }

    /// Reads the rows `rows` (a condition on `jobs j`, with parameters `values`) in chunks of `chunkSize`, with the ended
    /// members of their groups and the attempt logs of their active polls, in the order the
    /// database gives them, on the store's queue.
    func read(_ rows: String, _ values: [StoreValue] = [], chunkSize: Int, _ each: ([JobRecord], _ total: Int) -> Void) throws(DaemonError) {
        let context = try self.context(of: rows, values)
        var chunk: [JobRecord] = []
        chunk.reserveCapacity(min(chunkSize, context.total))
        try backend.read(StoreCoding.jobsQuery(of: rows), values) { row in
            guard let record = context.record(from: row) else { return }
            chunk.append(record)
            if chunk.count >= chunkSize {
                each(chunk, context.total)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty || context.total == 0 { each(chunk, context.total) }
    }

    /// What making records of the rows `rows` (a condition on `jobs j`, with parameters `values`)
    /// needs beside them, read first: each group's ended members are applied over its row as the
    /// row is read.
    func context(of rows: String, _ values: [StoreValue]) throws(DaemonError) -> JobRowContext {
        dispatchPrecondition(condition: .onQueue(queue))
        let members = try endedMembers(of: rows, values)
        var attempts: [String: [AttemptInfo]] = [:]
        try backend.read(StoreCoding.activePollAttemptsQuery(of: rows), values) { row in
            guard let id = row.text(0), let attempt = row.text(1).flatMap(AttemptInfo.init(storedJSON:)) else { return }
            attempts[id, default: []].append(attempt)
        }
        var total = 0
        try backend.read(StoreCoding.countQuery(of: rows), values) { total = Int($0.integer(0) ?? 0) }
        return JobRowContext(members: members, attempts: attempts, total: total)
    }

    /// The ended members of the groups among `rows` (a condition on `jobs j`, with parameters
    /// `values`), by group.
    func endedMembers(of rows: String, _ values: [StoreValue]) throws(DaemonError) -> [String: [(index: Int, record: MemberRecord)]] {
        dispatchPrecondition(condition: .onQueue(queue))
        var members: [String: [(index: Int, record: MemberRecord)]] = [:]
        try backend.read(StoreCoding.membersQuery(of: rows), values) { row in
            guard let id = row.text(0), let index = row.integer(1), let member = row.text(2).flatMap(MemberRecord.init(storedJSON:))
            else { return }
            members[id, default: []].append((Int(index), member))
        }
        return members
    }

    /// Applies a group's member rows, read apart from its row, over the row while the group is
    /// active. An ended group's row holds every member as it ended, written with the group's end;
    /// its member rows may be older (a member's first start), so they do not count.
    static func apply(_ members: [String: [(index: Int, record: MemberRecord)]], to record: inout JobRecord) {
        guard record.kind == .group, record.state == .active, let ended = members[record.id] else { return }
        for member in ended { _ = record.apply(.groupMember(record.id, index: member.index, member.record)) }
    }

    /// Reads a job's attempt log, oldest first, after every batch submitted before this call, and
    /// hands it to `then` on the store's queue; nil when it cannot be read. Attempts of a failed
    /// commit that wait to be written again are in it.
    public func attempts(of id: String, _ then: @escaping @Sendable ([AttemptInfo]?) -> Void) {
        queue.async {
            self.catchUp()
            then(self.closed ? nil : try? self.storedAttempts(of: id))
        }
    }

    /// A job's attempt log as the store has it, with the attempts of a failed commit that wait to
    /// be written again.
    func storedAttempts(of id: String) throws(DaemonError) -> [AttemptInfo] {
        dispatchPrecondition(condition: .onQueue(queue))
        var log = AttemptLog()
        try backend.read(StoreCoding.attemptsQuery, [.text(id)]) { row in
            if let attempt = row.text(0).flatMap(AttemptInfo.init(storedJSON:)) { log.append(attempt) }
        }
        for change in unwritten where change.jobID == id {
            switch change {
            case .attempt(_, let attempt): log.append(attempt)
            case .attemptAddress(_, let number, let address): log.setAddress(address, ofAttempt: number)
            default: break
            }
        }
        return log.entries
    }

    /// Queues a batch for the next transaction.
    public func submit(_ batch: StoreBatch) {
        guard !batch.isEmpty else { return }
        let urgent = !batch.barriers.isEmpty || !batch.notices.isEmpty || commitDelayNanos == 0
        let schedule = pending.withLock { state -> Drain in
            state.batches.append(batch)
            switch (state.scheduled, urgent) {
            case (.now, _), (.delayed, false): return .none
            case (.none, false):
                state.scheduled = .delayed
                return .delayed
            case (_, true):
                state.scheduled = .now
                return .now
            }
        }
        switch schedule {
        case .none: break
        case .now: queue.async { self.drain() }
        case .delayed: queue.asyncAfter(deadline: .now() + .nanoseconds(Int(commitDelayNanos))) { [weak self] in self?.drain() }
        }
    }

    /// Which drain of the pending batches is queued.
    private enum Drain {
        /// No drain is queued, since no batch is pending.
        case none
        /// After `commitDelayNanos`: the batches hold only changes that no reply waits for.
        case delayed
        /// At once: a batch holds a barrier or a notice.
        case now
    }

    /// Writes the batches that wait for their drain, so that what runs next on the queue (a
    /// read, a query, a flush) comes after every batch submitted before it.
    func catchUp() {
        dispatchPrecondition(condition: .onQueue(queue))
        if pending.withLock({ !$0.batches.isEmpty }) { drain() }
    }

    /// Waits until every submitted batch has been written (or has failed).
    public func flush() {
        queue.sync { catchUp() }
    }

    /// Flushes and closes the database. The changes an earlier failed commit left are tried once
    /// more, even with no batch after them, so that a stop after the disk came back loses none.
    public func close() {
        lease.withLock { $0?.cancel() }
        flush()
        queue.sync {
            if !unwritten.isEmpty { drain(retrying: true) }
            closed = true
            backend.close()
        }
    }

    /// Writes the pending batches in one transaction, after what an earlier failed commit left;
    /// `retrying` writes those alone when no batch is pending.
    private func drain(retrying: Bool = false) {
        dispatchPrecondition(condition: .onQueue(queue))
        let batches = pending.withLock { state -> [StoreBatch] in
            defer {
                state.batches = []
                state.scheduled = .none
            }
            return state.batches
        }
        // A delayed drain that an earlier one overtook finds nothing.
        guard !batches.isEmpty || retrying else { return }
        let changes = unwritten + batches.flatMap(\.changes)
        let barriers = batches.flatMap(\.barriers)
        // A retry alone releases nothing and refuses nothing: no one is told of it.
        let told = !batches.isEmpty
        func onCommit(_ barriers: [CommitToken], _ failure: String?) {
            if told { self.onCommit(barriers, failure) }
        }
        guard !closed else { return onCommit(barriers, "the store is closed") }
        let notices = batches.flatMap(\.notices).map { StoreStatement("SELECT pg_notify(current_schema(), ?1)", [.text($0)]) }
        do throws(DaemonError) {
            if !changes.isEmpty || !notices.isEmpty {
                let started = SystemClock.now().instant
                try backend.transaction(notices + (try coding.statements(for: changes)))
                metrics?.committed(nanoseconds: SystemClock.now().instant.nanoseconds(since: started))
            }
            unwritten = []
            onCommit(barriers, nil)
        } catch {
            if error.code == .leaseLost { lease.withLock { $0 }?.lose(error) }
            // Registrations are refused through their barriers; the rest is kept and written with
            // the next commit, folded to the latest per job, so a store that stays down does not
            // make the list grow.
            unwritten = Self.latestPerJob(changes.filter(Self.keptOnFailure))
            onCommit(barriers, error.description)
        }
    }
}
