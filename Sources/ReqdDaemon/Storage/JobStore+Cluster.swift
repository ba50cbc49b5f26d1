import Dispatch
import ReqdCore
import ReqdProtocol

/// Answers about the jobs other daemons hold, on a store that several daemons share.
extension JobStore {
    /// Answers `query` on the store's queue, after every batch submitted before it, and hands the
    /// answer to `then` there. A store no other daemon shares has nothing more than the
    /// daemon's own table: no job, nothing cancelled.
    public func ask(_ query: ClusterQuery, _ then: @escaping @Sendable (ClusterAnswer) -> Void) {
        queue.async {
            self.catchUp()
            guard !self.closed else { return then(.unavailable("the store is closed")) }
            do throws(DaemonError) {
                then(try self.answer(query))
            } catch {
                then(.unavailable("the store could not be asked: \(error.message)"))
            }
        }
    }

    /// Tells the holder of a job another daemon holds that this daemon no longer watches it, on
    /// the store's queue; a failure only leaves its events coming, to be dropped here.
    public func stopWatching(_ id: String) {
        queue.async {
            self.catchUp()
            guard !self.closed, self.backend is any LeasedStoreBackend else { return }
            try? self.backend.read(
                "UPDATE waits SET events = false WHERE job = ?1 AND daemon = \(StoreDialect.holder)", [.text(id)]) { _ in }
            try? self.backend.read(
                """
                SELECT pg_notify(current_schema(), holder || ' ~' || id || ' ' || \(StoreDialect.holder)) FROM jobs
                WHERE id = ?1 AND holder IS NOT NULL AND holder <> \(StoreDialect.holder)
                """, [.text(id)]) { _ in }
        }
    }

    /// Hands `heard` the end of a job this daemon waits for, read from its row, and lets the job's
    /// `waits` row go; an active job (a retry made it active again) keeps it. A row already gone
    /// (forgotten or deleted with its `waits` rows) is told as such, since no later survey finds it.
    func settleWait(_ id: String, _ heard: (SchedulerEvent) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !closed else { return }
        let found: JobRecord?
        do throws(DaemonError) { found = try row(id) } catch { return }
        guard let record = found else { return heard(.waitedJobGone(JobID(id))) }
        if record.state == .active { return }
        heard(.waitedJobEnded(record))
        try? backend.read("DELETE FROM waits WHERE job = ?1 AND daemon = \(StoreDialect.holder)", [.text(id)]) { _ in }
    }

    /// Settles every wait of this daemon's whose job has ended: a notice lost while a connection
    /// was down leaves its row behind, and each renewal comes here.
    func settleWaits(_ heard: (SchedulerEvent) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !closed, backend is any LeasedStoreBackend else { return }
        var ended: [String] = []
        try? backend.read(
            """
            SELECT w.job FROM waits w JOIN jobs j ON j.id = w.job
            WHERE w.daemon = \(StoreDialect.holder) AND j.state <> 'active'
            """, []
        ) { row in
            if let id = row.text(0) { ended.append(id) }
        }
        for id in ended { settleWait(id, heard) }
    }

    /// A job's row as the store has it; nil when there is none. One round trip, and one more for
    /// a group's ended members or an active poll's attempts.
    func row(_ id: String) throws(DaemonError) -> JobRecord? {
        dispatchPrecondition(condition: .onQueue(queue))
        var found: JobRecord?
        try backend.read(StoreCoding.jobsQuery(of: "j.id = ?1"), [.text(id)]) { found = StoreCoding.record(from: $0) }
        guard var record = found else { return nil }
        if record.kind == .group {
            Self.apply(try endedMembers(of: "j.id = ?1", [.text(id)]), to: &record)
        } else if record.kind == .poll, record.state == .active {
            record.attempts = try storedAttempts(of: id)
        }
        return record
    }

    private func answer(_ query: ClusterQuery) throws(DaemonError) -> ClusterAnswer {
        dispatchPrecondition(condition: .onQueue(queue))
        let shared = backend is any LeasedStoreBackend
        switch query.operation {
        case .status(let id, let attempts):
            guard shared, var record = try row(id) else { return .found(nil) }
            // An active poll's row comes with its log already.
            if attempts, record.attempts == nil { record.attempts = try storedAttempts(of: id) }
            return .found(record)
        case .wait(let id):
            guard shared else { return .found(nil) }
            // Asks to be told of the end first, then reads: an end that another daemon is writing
            // holds the lock until it commits, so it is either read here or told (`ClusterNotice`).
            try backend.write(
                """
                INSERT INTO waits (job, daemon)
                SELECT id, \(StoreDialect.holder) FROM jobs WHERE id = ?1 AND state = 'active' FOR SHARE
                ON CONFLICT DO NOTHING
                """, [.text(id)]
            ) { _ in }
            return .found(try row(id))
        case .watch(let id):
            guard shared else { return .found(nil) }
            try backend.write(
                """
                INSERT INTO waits (job, daemon, events)
                SELECT id, \(StoreDialect.holder), true FROM jobs WHERE id = ?1 AND state = 'active' FOR SHARE
                ON CONFLICT (job, daemon) DO UPDATE SET events = true
                """, [.text(id)]
            ) { _ in }
            // The holder streams the job's events here from when it hears this.
            try backend.read(
                """
                SELECT pg_notify(current_schema(), holder || ' +' || id || ' ' || \(StoreDialect.holder)) FROM jobs
                WHERE id = ?1 AND state = 'active' AND holder IS NOT NULL AND holder <> \(StoreDialect.holder)
                """, [.text(id)]
            ) { _ in }
            return .found(try row(id))
        case .list(let filter, let limit):
            guard shared else { return .listed([], more: false) }
            return try list(filter, limit: limit, uid: query.uid)
        case .retry(let id):
            guard shared else { return .retried(nil, taken: false) }
            return try takeForRetry(id, uid: query.uid)
        case .cancel(let selector):
            guard shared else { return .cancelled([], found: false) }
            return try cancel(selector, uid: query.uid)
        }
    }

    /// The first `limit` rows after the filter's cursor, in creation order, that the filter selects
    /// among the rows other daemons hold (or none does), each with its group's ended members.
    /// The walk follows the index on creation order, so a page costs its length plus the rows the
    /// filter passes over.
    private func list(_ filter: ListRequest, limit: Int, uid: UInt32) throws(DaemonError) -> ClusterAnswer {
        var conditions = ["j.holder IS DISTINCT FROM \(StoreDialect.holder)"]
        var values: [StoreValue] = []
        func add(_ condition: (String) -> String, _ value: StoreValue) {
            values.append(value)
            conditions.append(condition("?\(values.count)"))
        }
        if uid != 0 { add({ "j.owner = \($0)" }, .integer(Int64(uid))) }
        if let state = filter.state { add({ "j.state = \($0)" }, .text(state.rawValue)) }
        if let kind = filter.kind { add({ "j.kind = \($0)" }, .text(kind.rawValue)) }
        if let scope = filter.scope { add({ "j.scope = \($0)" }, .text(scope)) }
        if let key = filter.key { add({ "j.key = \($0)" }, .text(key)) }
        if let after = filter.after, let colon = after.firstIndex(of: ":"), let createdAt = Int64(after[..<colon]) {
            values += [.integer(createdAt), .text(String(after[after.index(after: colon)...]))]
            let (time, id) = ("?\(values.count - 1)", "?\(values.count)")
            // A row comparison, which the index on (created_ns, id) seeks to.
            conditions.append("(j.created_ns, (j.id COLLATE \"C\")) > (\(time), \(id))")
        }
        var records: [JobRecord] = []
        try backend.read(
            StoreCoding.jobsQuery(of: conditions.joined(separator: " AND ")) + " ORDER BY j.created_ns, j.id COLLATE \"C\" LIMIT \(limit + 1)", values
        ) { row in
            if let record = StoreCoding.record(from: row) { records.append(record) }
        }
        let more = records.count > limit
        if more { records.removeLast() }
        let groups = records.filter { $0.kind == .group }.map(\.id)
        if !groups.isEmpty {
            let places = groups.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
            let members = try endedMembers(of: "j.id IN (\(places))", groups.map { .text($0) })
            for index in records.indices { Self.apply(members, to: &records[index]) }
        }
        return .listed(records, more: more)
    }

    /// Marks a dead or failed request job's row active and held by this daemon, unless another
    /// active job holds its key: of two daemons retrying one job at once, one takes it. Its old
    /// holder is told to forget it. The row comes back from the same statement, as it was before,
    /// so that nothing can fail between the take and the retry.
    private func takeForRetry(_ id: String, uid: UInt32) throws(DaemonError) -> ClusterAnswer {
        var taken: (record: JobRecord, holder: String?)?
        try backend.write(
            """
            UPDATE jobs j SET state = 'active', holder = \(StoreDialect.holder), claim = NULL, ended_by = NULL
            FROM (SELECT id, state, holder FROM jobs WHERE id = ?1 FOR UPDATE) o
            WHERE j.id = o.id AND j.kind = 'request' AND j.state IN ('dead', 'failed') AND (?2 = 0 OR j.owner = ?2)
              AND (j.key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs k WHERE k.owner = j.owner AND k.key = j.key AND k.state = 'active'))
            RETURNING \(StoreCoding.recordColumns), o.state, o.holder
            """, [.text(id), .integer(Int64(uid))]
        ) { row in
            guard var record = StoreCoding.record(from: row), let state = row.text(25).flatMap(JobState.init(rawValue:)) else { return }
            record.state = state
            taken = (record, row.text(26))
        }
        guard let taken else { return .retried(try row(id), taken: false) }
        if let holder = taken.holder {
            try? backend.read(
                "SELECT pg_notify(current_schema(), ?1 || ' -' || ?2) WHERE ?1 <> \(StoreDialect.holder)", [.text(holder), .text(id)]) { _ in }
        }
        return .retried(taken.record, taken: true)
    }

    /// Ends as `cancelled` the active rows `selector` names that other daemons hold. The store
    /// tells each holder (`ClusterNotice.endedElsewhere`), which aborts its requests in flight.
    private func cancel(_ selector: JobSelector, uid: UInt32) throws(DaemonError) -> ClusterAnswer {
        let (column, value) =
            if let job = selector.job { ("id", job) } else if let key = selector.key { ("key", key) } else { ("scope", selector.scope ?? "") }
        // A key is looked up among the caller's own jobs, as on one daemon; root reaches every
        // owner's job and scope.
        let owner = column == "key" ? "owner = ?3" : "(?3 = 0 OR owner = ?3)"
        var cancelled: [String] = []
        try backend.write(
            """
            UPDATE jobs SET state = 'cancelled', reason = 'requested', ended_ns = ?2, ended_by = \(StoreDialect.holder), due_ns = NULL
            WHERE \(column) = ?1 AND state = 'active' AND \(owner) AND holder IS DISTINCT FROM \(StoreDialect.holder)
            RETURNING id
            """, [.text(value), .integer(SystemClock.now().wall.nanosecondsSinceEpoch), .integer(Int64(uid))]
        ) { row in
            if let id = row.text(0) { cancelled.append(id) }
        }
        cancelled.sort()
        if selector.key != nil { return .cancelled(cancelled, found: !cancelled.isEmpty) }
        guard cancelled.isEmpty, let job = selector.job else { return .cancelled(cancelled, found: true) }
        // Nothing to cancel: an ended job is found, and cancels nothing, as on one daemon.
        var found = false
        try backend.read("SELECT owner FROM jobs WHERE id = ?1", [.text(job)]) { row in
            found = uid == 0 || row.integer(0) == Int64(uid)
        }
        return .cancelled([], found: found)
    }
}
