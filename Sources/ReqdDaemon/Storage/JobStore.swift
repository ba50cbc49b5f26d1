import Dispatch
import Foundation
import Glibc
import ReqdCore
import ReqdProtocol
import Synchronization

/// The durable job store: SQLite in WAL mode with `synchronous=FULL`, on its own serial queue.
///
/// Batches that arrive while a commit is running are merged into the next transaction (group
/// commit), so durability costs one fsync per busy period, not one per job. After each commit the
/// store reports every barrier of the merged batches as done, or as failed with the reason.
public final class JobStore: @unchecked Sendable {
    // @unchecked Sendable: `database`, `unwritten`, `encoder` and `attemptWriter` are touched only
    // on `queue` (asserted);
    // `pending` is guarded by its Mutex.
    private let queue = DispatchQueue(label: "reqd.store")
    private let database: SQLiteDatabase
    private let pending = Mutex<(batches: [StoreBatch], scheduled: Bool)>(([], false))
    private var unwritten: [StoreChange] = []
    private let encoder = CompactJSONEncoder()
    private var attemptWriter = JSONWriter(capacity: 1024)
    private let onCommit: @Sendable ([CommitToken], String?) -> Void
    private let metrics: DaemonMetrics?

    /// The database file.
    public let path: String

    /// Opens (creating and migrating as needed) the store in `directory`.
    ///
    /// A file that cannot be opened or read, or that fails the check, is left exactly as it was:
    /// the error goes up, and nothing is written to the file before the check has passed.
    ///
    /// - Parameters:
    ///   - checkIntegrity: runs `PRAGMA quick_check` first (after a stop that was not clean).
    ///   - onCommit: called on the store's queue after each transaction with its barriers and nil,
    ///     or with the failure's reason.
    public init(
        directory: String, checkIntegrity: Bool = false, metrics: DaemonMetrics? = nil,
        onCommit: @escaping @Sendable ([CommitToken], String?) -> Void
    ) throws(DaemonError) {
        path = directory + "/reqd.sqlite3"
        database = try SQLiteDatabase(path: path)
        self.metrics = metrics
        self.onCommit = onCommit
        if checkIntegrity {
            var findings: [String] = []
            try database.run("PRAGMA quick_check", []) { findings.append($0.text(0) ?? "") }
            guard findings == ["ok"] else {
                throw DaemonError(.storeDamaged, "\(path) failed its integrity check: \(findings.prefix(3).joined(separator: "; "))")
            }
        }
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try StoreSchema.migrate(database)
    }

    /// Reads every job row, for restoring at start-up.
    public func loadAll() throws(DaemonError) -> [JobRecord] {
        var records: [JobRecord] = []
        try load(chunkSize: .max) { chunk, total in
            records.reserveCapacity(total)
            records += chunk
        }
        return records
    }

    /// Reads every job row in chunks of `chunkSize`, handing each to `each` with the count of rows
    /// in all as soon as it is read, so the caller can restore one chunk while the next is read.
    public func load(chunkSize: Int, _ each: ([JobRecord], _ total: Int) -> Void) throws(DaemonError) {
        // The row callback is only called during `run`, never kept.
        let failure = withoutActuallyEscaping(each) { each in queue.sync { () -> DaemonError? in
            do throws(DaemonError) {
                // Members first: each group's are applied over its row as the row is read.
                var members: [String: [(index: Int, record: MemberRecord)]] = [:]
                try database.run("SELECT job, idx, detail FROM group_members", []) { row in
                    guard let id = row.text(0), let index = row.integer(1), let member = row.text(2).flatMap(Self.decodeMember)
                    else { return }
                    members[id, default: []].append((Int(index), member))
                }

                // An active poll holds its attempts in memory while it runs.
                var attempts: [String: [AttemptInfo]] = [:]
                try database.run(
                    """
                    SELECT a.job, a.detail FROM attempts a JOIN jobs j ON j.id = a.job
                    WHERE j.state = 'active' AND j.kind = 'poll' ORDER BY a.job, a.seq
                    """, []
                ) { row in
                    guard let id = row.text(0), let attempt = row.text(1).flatMap(Self.decodeAttempt) else { return }
                    attempts[id, default: []].append(attempt)
                }
                let total = Int(try database.scalar("SELECT count(*) FROM jobs"))
                var chunk: [JobRecord] = []
                chunk.reserveCapacity(min(chunkSize, total))
                try database.run(
                    """
                    SELECT id, owner, kind, state, key, scope, created_ns, ended_ns, reason, replaced_by,
                           deadline_ns, tick_ns, late_by_ns, detail,
                           polls, failures, progress, last_status, last_error, last_start_ns,
                           progressed, result, error, spawned, counters FROM jobs
                    """, []
                ) { row in
                    guard let id = row.text(0), let kind = row.text(2).flatMap(JobKind.init(rawValue:)),
                        let state = row.text(3).flatMap(JobState.init(rawValue:))
                    else { return }
                    var record = JobRecord(
                        id: id, owner: UInt32(truncatingIfNeeded: row.integer(1) ?? 0), kind: kind, state: state,
                        key: row.text(4), scope: row.text(5),
                        createdAt: WallTime(nanosecondsSinceEpoch: row.integer(6) ?? 0),
                        endedAt: row.integer(7).map(WallTime.init(nanosecondsSinceEpoch:)),
                        reason: row.text(8).flatMap(EventReason.init(rawValue:)), replacedBy: row.text(9),
                        deadline: row.integer(10).map(WallTime.init(nanosecondsSinceEpoch:)), tickNanos: row.integer(11),
                        lateByNanos: row.integer(12), detail: Self.decodeDetail(row.text(13)))
                    if let polls = row.integer(14), let failures = row.integer(15) {
                        record.detail.poll?.counters = PollCounters(
                            polls: Int(polls), failures: Int(failures), progress: row.real(16),
                            lastStatus: row.integer(17).map { Int($0) }, lastError: row.text(18),
                            lastStart: row.integer(19).map(WallTime.init(nanosecondsSinceEpoch:)))
                    }
                    if row.integer(20) == 1 {
                        // The changing columns hold over the detail, as a `.progress` wrote them.
                        var progress = record.progress
                        progress.result = row.text(21).flatMap { try? JSONDecoder().decode(HTTPResult.self, from: Data($0.utf8)) }
                        progress.error = row.text(22)
                        progress.spawned = row.text(23)
                        if let counters = Self.counters(row.text(24), of: kind) { progress.counters = counters }
                        record.apply(progress)
                    }
                    if let log = attempts[id] { record.attempts = log }
                    if kind == .group, let ended = members[id] {
                        for member in ended { _ = record.apply(.groupMember(id, index: member.index, member.record)) }
                    }
                    chunk.append(record)
                    if chunk.count >= chunkSize {
                        each(chunk, total)
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                if !chunk.isEmpty || total == 0 { each(chunk, total) }
            } catch {
                return error
            }
            return nil
        } }
        if let failure { throw failure }
    }

    /// Reads a job's attempt log, oldest first, after every batch submitted before this call, and
    /// hands it to `then` on the store's queue; nil when it cannot be read. Attempts of a failed
    /// commit that wait to be written again are in it.
    public func attempts(of id: String, _ then: @escaping @Sendable ([AttemptInfo]?) -> Void) {
        queue.async {
            dispatchPrecondition(condition: .onQueue(self.queue))
            var log = AttemptLog()
            do throws(DaemonError) {
                try self.database.run("SELECT detail FROM attempts WHERE job = ?1 ORDER BY seq", [.text(id)]) { row in
                    if let attempt = row.text(0).flatMap(Self.decodeAttempt) { log.append(attempt) }
                }
            } catch {
                return then(nil)
            }
            for change in self.unwritten where change.jobID == id {
                switch change {
                case .attempt(_, let attempt): log.append(attempt)
                case .attemptAddress(_, let number, let address): log.setAddress(address, ofAttempt: number)
                default: break
                }
            }
            then(log.entries)
        }
    }

    /// Queues a batch for the next transaction.
    public func submit(_ batch: StoreBatch) {
        guard !batch.isEmpty else { return }
        let schedule = pending.withLock { state -> Bool in
            state.batches.append(batch)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Waits until every submitted batch has been written (or has failed).
    public func flush() {
        queue.sync {}
    }

    /// Flushes and closes the database.
    public func close() {
        flush()
        queue.sync { database.close() }
    }

    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        let batches = pending.withLock { state -> [StoreBatch] in
            defer {
                state.batches = []
                state.scheduled = false
            }
            return state.batches
        }
        let changes = unwritten + batches.flatMap(\.changes)
        let barriers = batches.flatMap(\.barriers)
        do {
            let started = SystemClock.now().instant
            try write(changes)
            if !changes.isEmpty { metrics?.committed(nanoseconds: SystemClock.now().instant.nanoseconds(since: started)) }
            unwritten = []
            onCommit(barriers, nil)
        } catch {
            try? database.execute("ROLLBACK")
            // Inserts are refused through their barriers; later state changes are kept and retried,
            // only the last one per job, so a store that stays down does not make the list grow.
            unwritten = Self.latestPerJob(changes.filter { if case .insert = $0 { false } else { true } })
            onCommit(barriers, error.description)
        }
    }

    private func write(_ changes: [StoreChange]) throws(DaemonError) {
        guard !changes.isEmpty else { return }
        try database.execute("BEGIN IMMEDIATE")
        for change in changes {
            switch change {
            case .insert(let record):
                if record.state == .active, let key = record.key {
                    try database.run(
                        """
                        UPDATE jobs SET state = 'cancelled', reason = 'superseded', replaced_by = ?1, ended_ns = ?2
                        WHERE owner = ?3 AND key = ?4 AND state = 'active' AND id != ?1
                        """,
                        [.text(record.id), .integer(record.createdAt.nanosecondsSinceEpoch), .integer(Int64(record.owner)), .text(key)])
                }
                try save(record)
            case .progress(let id, let progress):
                try database.run(
                    """
                    UPDATE jobs SET state = ?2, ended_ns = ?3, reason = ?4, replaced_by = ?5, late_by_ns = ?6,
                                    progressed = 1, result = ?7, error = ?8, spawned = ?9, counters = ?10
                    WHERE id = ?1
                    """,
                    [
                        .text(id), .text(progress.state.rawValue), .init(progress.endedAt?.nanosecondsSinceEpoch),
                        .init(progress.reason?.rawValue), .init(progress.replacedBy), .init(progress.lateByNanos),
                    ] + (try values(progress)))
                if case .poll(let counters) = progress.counters { try updatePollCounters(id, counters) }
            case .pollCounters(let id, let counters):
                try updatePollCounters(id, counters)
            case .groupMember(let id, let index, let member):
                try database.run(
                    "INSERT OR REPLACE INTO group_members (job, idx, detail) VALUES (?1, ?2, ?3)",
                    [.text(id), .integer(Int64(index)), .text(try encode(member))])
            case .attempt(let id, let attempt):
                // Written by the wire's own JSON writer: a poll writes one per answer.
                attemptWriter.removeAll()
                attempt.write(to: &attemptWriter)
                // Appended after the job's last row; the one 5 rows back goes. Both find their rows by
                // the key's prefix.
                try database.run(
                    """
                    INSERT INTO attempts (job, seq, detail)
                    VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM attempts WHERE job = ?1), ?2)
                    """, [.text(id), .text(String(decoding: attemptWriter.bytes, as: UTF8.self))])
                try database.run(
                    "DELETE FROM attempts WHERE job = ?1 AND seq <= (SELECT max(seq) FROM attempts WHERE job = ?1) - ?2",
                    [.text(id), .integer(Int64(AttemptInfo.kept))])
            case .attemptAddress(let id, let number, let address):
                try database.run(
                    """
                    UPDATE attempts SET detail = json_set(detail, '$.address', ?3)
                    WHERE job = ?1 AND seq = (SELECT max(seq) FROM attempts WHERE job = ?1)
                      AND json_extract(detail, '$.number') = ?2 AND json_extract(detail, '$.address') IS NULL
                    """, [.text(id), .integer(Int64(number)), .text(address)])
            case .delete(let id):
                try database.run("DELETE FROM jobs WHERE id = ?1", [.text(id)])
                try database.run("DELETE FROM group_members WHERE job = ?1", [.text(id)])
                try database.run("DELETE FROM attempts WHERE job = ?1", [.text(id)])
            }
        }
        try database.execute("COMMIT")
    }

    private func updatePollCounters(_ id: String, _ counters: PollCounters) throws(DaemonError) {
        try database.run(
            """
            UPDATE jobs SET polls = ?2, failures = ?3, progress = ?4, last_status = ?5, last_error = ?6, last_start_ns = ?7
            WHERE id = ?1
            """, [.text(id)] + Self.values(counters))
    }

    /// A job's changing columns `result`, `error`, `spawned` and `counters`; a poll's counters
    /// have columns of their own.
    private func values(_ progress: JobProgress) throws(DaemonError) -> [SQLiteDatabase.Value] {
        let counters: String? =
            switch progress.counters {
            case .none, .poll: nil
            case .delivery(let counters): try encode(counters)
            case .group(let counters): try encode(counters)
            case .schedule(let counters): try encode(counters)
            }
        return [.init(try progress.result.map(encode)), .init(progress.error), .init(progress.spawned), .init(counters)]
    }

    private func save(_ record: JobRecord) throws(DaemonError) {
        try database.run(
            """
            INSERT OR REPLACE INTO jobs (id, owner, kind, state, key, scope, created_ns, ended_ns, reason,
                                         replaced_by, deadline_ns, tick_ns, late_by_ns, detail,
                                         polls, failures, progress, last_status, last_error, last_start_ns,
                                         progressed, result, error, spawned, counters)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                    1, ?21, ?22, ?23, ?24)
            """,
            [
                .text(record.id), .integer(Int64(record.owner)), .text(record.kind.rawValue), .text(record.state.rawValue),
                .init(record.key), .init(record.scope), .integer(record.createdAt.nanosecondsSinceEpoch),
                .init(record.endedAt?.nanosecondsSinceEpoch), .init(record.reason?.rawValue), .init(record.replacedBy),
                .init(record.deadline?.nanosecondsSinceEpoch), .init(record.tickNanos), .init(record.lateByNanos),
                .init(try encodeDetail(record.detail)),
            ] + (record.detail.poll.map { Self.values($0.counters) } ?? Array(repeating: .null, count: 6))
                + (try values(record.progress)))
    }

    /// A poll's counters as the six column values `polls` … `last_start_ns`.
    private static func values(_ counters: PollCounters) -> [SQLiteDatabase.Value] {
        [
            .init(counters.polls), .init(counters.failures), .init(counters.progress), .init(counters.lastStatus),
            .init(counters.lastError), .init(counters.lastStart?.nanosecondsSinceEpoch),
        ]
    }

    private func encodeDetail(_ detail: JobDetail) throws(DaemonError) -> String? {
        guard !detail.isEmpty else { return nil }
        return try encode(detail)
    }

    private func encode(_ value: some Encodable) throws(DaemonError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw DaemonError(.storeWriteFailed, "cannot encode a job's detail: \(error)")
        }
    }

    private static func decodeAttempt(_ text: String) -> AttemptInfo? {
        try? JSONDecoder().decode(AttemptInfo.self, from: Data(text.utf8))
    }

    private static func decodeMember(_ text: String) -> MemberRecord? {
        try? JSONDecoder().decode(MemberRecord.self, from: Data(text.utf8))
    }

    /// The `counters` column read back as its kind's counters; nil when empty or unreadable.
    private static func counters(_ text: String?, of kind: JobKind) -> JobProgress.Counters? {
        guard let data = text.map({ Data($0.utf8) }) else { return nil }
        switch kind {
        case .request: return (try? JSONDecoder().decode(DeliveryCounters.self, from: data)).map(JobProgress.Counters.delivery)
        case .group: return (try? JSONDecoder().decode(GroupCounters.self, from: data)).map(JobProgress.Counters.group)
        case .schedule: return (try? JSONDecoder().decode(ScheduleCounters.self, from: data)).map(JobProgress.Counters.schedule)
        case .countdown, .poll: return nil
        }
    }

    private static func decodeDetail(_ text: String?) -> JobDetail {
        guard let text, let detail = try? JSONDecoder().decode(JobDetail.self, from: Data(text.utf8)) else {
            return JobDetail()
        }
        return detail
    }
}
