import Foundation
import ReqdCore
import ReqdProtocol

/// How jobs become rows and rows become jobs, the same for every backend: the statements a batch of
/// changes makes, and the records read back. Confined to its store's queue, like its encoder.
struct StoreCoding {
    private let encoder = CompactJSONEncoder()
    private var attemptWriter = JSONWriter(capacity: 1024)
    /// The SQL of the backend's database where dialects differ.
    let dialect: StoreDialect

    init(dialect: StoreDialect) {
        self.dialect = dialect
    }

    /// The statements that make `changes`, in order, for one transaction.
    ///
    /// A job's member and attempt rows are written only while its `jobs` row exists, so none is
    /// left without one: they come after every `jobs` statement of the transaction (a spawned job's
    /// first attempt is staged before the insert that a failed commit left for later), and a row
    /// whose job is gone or was never written is not made.
    mutating func statements(for changes: [StoreChange]) throws(DaemonError) -> [StoreStatement] {
        var statements: [StoreStatement] = []
        var dependents: [StoreStatement] = []
        statements.reserveCapacity(changes.count * 2)
        for change in changes {
            switch change {
            case .insert(let record):
                if dialect.keysAreUnique, record.state == .active, let key = record.key {
                    statements.append(
                        StoreStatement(
                            """
                            UPDATE jobs SET state = 'cancelled', reason = 'superseded', replaced_by = ?1, ended_ns = ?2\(dialect.releaseRow)
                            WHERE owner = ?3 AND key = ?4 AND state = 'active' AND id != ?1
                            """,
                            [.text(record.id), .integer(record.createdAt.nanosecondsSinceEpoch), .integer(Int64(record.owner)), .text(key)]))
                }
                statements.append(
                    StoreStatement(dialect.upsertJob, try jobColumns(record) + (dialect.recordsDue ? [.init(Self.due(of: record))] : [])))
            case .progress(let id, let progress):
                statements.append(
                    StoreStatement(
                        """
                        UPDATE jobs SET state = ?2, ended_ns = ?3, reason = ?4, replaced_by = ?5, late_by_ns = ?6,
                                        progressed = 1, result = ?7, error = ?8, spawned = ?9, counters = ?10\(dialect.recordsDue ? ", due_ns = ?11" : "")
                        WHERE id = ?1\(dialect.heldOnly)\(dialect.endedElsewhereStands)
                        """,
                        [
                            .text(id), .text(progress.state.rawValue), .init(progress.endedAt?.nanosecondsSinceEpoch),
                            .init(progress.reason?.rawValue), .init(progress.replacedBy), .init(progress.lateByNanos),
                        ] + (try values(progress)) + (dialect.recordsDue ? [.init(Self.due(of: progress))] : [])))
                if case .poll(let counters) = progress.counters { statements.append(pollCounters(id, counters)) }
            case .pollCounters(let id, let counters):
                statements.append(pollCounters(id, counters))
            case .groupMember(let id, let index, let member):
                dependents.append(StoreStatement(dialect.upsertMember, [.text(id), .integer(Int64(index)), .text(try encode(member))]))
            case .attempt(let id, let attempt):
                // Written by the wire's own JSON writer: a poll writes one per answer.
                attemptWriter.removeAll()
                attempt.write(to: &attemptWriter)
                // Appended after the job's last row; the one 5 rows back goes. Both find their rows by
                // the key's prefix.
                dependents.append(
                    StoreStatement(
                        """
                        INSERT INTO attempts (job, seq, detail)
                        SELECT ?1, (SELECT coalesce(max(seq), 0) + 1 FROM attempts WHERE job = ?1), ?2
                        WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ?1)
                        """, [.text(id), .text(String(decoding: attemptWriter.bytes, as: UTF8.self))]))
                dependents.append(
                    StoreStatement(
                        "DELETE FROM attempts WHERE job = ?1 AND seq <= (SELECT max(seq) FROM attempts WHERE job = ?1) - ?2",
                        [.text(id), .integer(Int64(AttemptInfo.kept))]))
            case .attemptAddress(let id, let number, let address):
                dependents.append(StoreStatement(dialect.setAttemptAddress, [.text(id), .integer(Int64(number)), .text(address)]))
            case .delete(let id):
                // A row another daemon took stays, with its members and attempts.
                let gone = " AND NOT EXISTS (SELECT 1 FROM jobs WHERE id = ?1)"
                statements.append(StoreStatement("DELETE FROM jobs WHERE id = ?1" + dialect.heldOnly + dialect.endedOnly, [.text(id)]))
                statements.append(StoreStatement("DELETE FROM group_members WHERE job = ?1" + gone, [.text(id)]))
                statements.append(StoreStatement("DELETE FROM attempts WHERE job = ?1" + gone, [.text(id)]))
            }
        }
        return statements + dependents
    }

    /// When an active job's row next needs its holder's timer, in wall-clock nanoseconds: a
    /// countdown's deadline, a request's next attempt, a schedule's next elapse; nil (claimed at
    /// once) for a poll, a group, an ended job, and a schedule whose run is in flight or queued
    /// (its run is due now, and the two go to one daemon) or that is paused.
    static func due(of record: JobRecord) -> Int64? {
        guard record.state == .active else { return nil }
        switch record.kind {
        case .countdown: return record.deadline?.nanosecondsSinceEpoch
        case .request: return record.detail.request?.counters.nextAttempt?.nanosecondsSinceEpoch
        case .schedule: return record.detail.schedule.flatMap { due(of: $0.counters) }
        case .poll, .group: return nil
        }
    }

    private static func due(of schedule: ScheduleCounters) -> Int64? {
        schedule.running == nil && !schedule.queued && !schedule.paused ? schedule.due?.nanosecondsSinceEpoch : nil
    }

    /// When an active job is due after a change of its progress, as `due(of:)` says.
    static func due(of progress: JobProgress) -> Int64? {
        guard progress.state == .active else { return nil }
        switch progress.counters {
        case .delivery(let counters): return counters.nextAttempt?.nanosecondsSinceEpoch
        case .schedule(let counters): return due(of: counters)
        case .none, .poll, .group: return nil
        }
    }

    private func pollCounters(_ id: String, _ counters: PollCounters) -> StoreStatement {
        StoreStatement(
            """
            UPDATE jobs SET polls = ?2, failures = ?3, progress = ?4, last_status = ?5, last_error = ?6, last_start_ns = ?7
            WHERE id = ?1\(dialect.heldOnly)
            """, [.text(id)] + Self.values(counters))
    }

    /// A job's changing columns `result`, `error`, `spawned` and `counters`; a poll's counters
    /// have columns of their own.
    private func values(_ progress: JobProgress) throws(DaemonError) -> [StoreValue] {
        let counters: String? =
            switch progress.counters {
            case .none, .poll: nil
            case .delivery(let counters): try encode(counters)
            case .group(let counters): try encode(counters)
            case .schedule(let counters): try encode(counters)
            }
        return [.init(try progress.result.map(encode)), .init(progress.error), .init(progress.spawned), .init(counters)]
    }

    /// A whole row's 24 values, in the order of the dialect's `upsertJob`.
    private func jobColumns(_ record: JobRecord) throws(DaemonError) -> [StoreValue] {
        [
            .text(record.id), .integer(Int64(record.owner)), .text(record.kind.rawValue), .text(record.state.rawValue),
            .init(record.key), .init(record.scope), .integer(record.createdAt.nanosecondsSinceEpoch),
            .init(record.endedAt?.nanosecondsSinceEpoch), .init(record.reason?.rawValue), .init(record.replacedBy),
            .init(record.deadline?.nanosecondsSinceEpoch), .init(record.tickNanos), .init(record.lateByNanos),
            .init(record.detail.isEmpty ? nil : try encode(record.detail)),
        ] + (record.detail.poll.map { Self.values($0.counters) } ?? Array(repeating: .null, count: 6))
            + (try values(record.progress))
    }

    /// A poll's counters as the six column values `polls` … `last_start_ns`.
    private static func values(_ counters: PollCounters) -> [StoreValue] {
        [
            .init(counters.polls), .init(counters.failures), .init(counters.progress), .init(counters.lastStatus),
            .init(counters.lastError), .init(counters.lastStart?.nanosecondsSinceEpoch),
        ]
    }

    private func encode(_ value: some Encodable) throws(DaemonError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw DaemonError(.storeWriteFailed, "cannot encode a job's detail: \(error)")
        }
    }
}
