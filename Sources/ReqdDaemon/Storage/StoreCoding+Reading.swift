import ReqdCore
import ReqdProtocol

/// The reads every backend answers with the same SQL, and the records made of their rows.
extension StoreCoding {
    /// The ended members of the groups among `rows` (a condition on `jobs j`): `job`, `idx`, `detail`.
    static func membersQuery(of rows: String) -> String {
        "SELECT m.job, m.idx, m.detail FROM group_members m JOIN jobs j ON j.id = m.job WHERE \(rows)"
    }

    /// The attempt logs of the active polls among `rows`, which hold theirs in memory while they
    /// run: `job`, `detail`.
    static func activePollAttemptsQuery(of rows: String) -> String {
        """
        SELECT a.job, a.detail FROM attempts a JOIN jobs j ON j.id = a.job
        WHERE j.state = 'active' AND j.kind = 'poll' AND \(rows) ORDER BY a.job, a.seq
        """
    }

    /// How many of `rows` there are.
    static func countQuery(of rows: String) -> String {
        "SELECT count(*) FROM jobs j WHERE \(rows)"
    }

    /// The job rows `rows`, their columns in the order `record(from:)` reads them.
    static func jobsQuery(of rows: String) -> String {
        "SELECT \(recordColumns) FROM jobs j WHERE \(rows)"
    }

    /// The columns of `jobs j` that `record(from:)` reads, in its order.
    static let recordColumns = """
        j.id, j.owner, j.kind, j.state, j.key, j.scope, j.created_ns, j.ended_ns, j.reason, j.replaced_by,
        j.deadline_ns, j.tick_ns, j.late_by_ns, j.detail,
        j.polls, j.failures, j.progress, j.last_status, j.last_error, j.last_start_ns,
        j.progressed, j.result, j.error, j.spawned, j.counters
        """

    /// How many columns `recordColumns` names.
    static let recordColumnCount = Int32(recordColumns.split(separator: ",").count)

    /// One job's attempt log, oldest first: `detail`. `?1` is the job.
    static let attemptsQuery = "SELECT detail FROM attempts WHERE job = ?1 ORDER BY seq"

    /// The job a `jobsQuery(of:)` row holds; nil for a row this reqd cannot read.
    ///
    /// The changing columns hold over the detail, as a `.progress` wrote them (and as
    /// `JobRecord.apply(_:)` sets them). The detail is finished before it is boxed, and the counters
    /// the columns hold are not read from it as well.
    static func record(from row: some StoreRow) -> JobRecord? {
        guard let id = row.text(0), let kind = row.text(2).flatMap(JobKind.init(rawValue:)),
            let state = row.text(3).flatMap(JobState.init(rawValue:))
        else { return nil }
        let progressed = row.integer(20) == 1
        var counters = JobProgress.Counters.none
        if let polls = row.integer(14), let failures = row.integer(15) {
            counters = .poll(
                PollCounters(
                    polls: Int(polls), failures: Int(failures), progress: row.real(16),
                    lastStatus: row.integer(17).map { Int($0) }, lastError: row.text(18),
                    lastStart: row.integer(19).map(WallTime.init(nanosecondsSinceEpoch:))))
        } else if progressed, let column = row.text(24).flatMap({ JobProgress.Counters(storedJSON: $0, of: kind) }) {
            counters = column
        }
        var detail = row.text(13).flatMap { JobDetail(storedJSON: $0, counters: counters) }
        if progressed {
            let result = row.text(21).flatMap(HTTPResult.init(storedJSON:)), error = row.text(22), spawned = row.text(23)
            if detail != nil || result != nil || error != nil || spawned != nil {
                if detail == nil { detail = JobDetail() }
                detail?.result = result
                detail?.error = error
                detail?.spawned = spawned
            }
        }
        return JobRecord(
            id: id, owner: UInt32(truncatingIfNeeded: row.integer(1) ?? 0), kind: kind, state: state,
            key: row.text(4), scope: row.text(5),
            createdAt: WallTime(nanosecondsSinceEpoch: row.integer(6) ?? 0),
            endedAt: row.integer(7).map(WallTime.init(nanosecondsSinceEpoch:)),
            reason: row.text(8).flatMap(EventReason.init(rawValue:)), replacedBy: row.text(9),
            deadline: row.integer(10).map(WallTime.init(nanosecondsSinceEpoch:)), tickNanos: row.integer(11),
            lateByNanos: row.integer(12), detail: detail)
    }
}
