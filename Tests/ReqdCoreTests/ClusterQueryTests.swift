import ReqdProtocol
import Testing

@testable import ReqdCore

/// `status`, `wait` and `cancel` of durable jobs that another daemon sharing the store holds: the
/// scheduler asks the store (`askCluster`) and replies from its answer.
@Suite("Clients on any daemon of a cluster")
struct ClusterQueryTests {
    private static func clustered() -> Harness {
        var configuration = SchedulerConfiguration()
        configuration.clustered = true
        return Harness(configuration: configuration)
    }

    /// A countdown registered on "another daemon" (a harness of its own), as its row reads.
    private static func rowElsewhere(key: String? = nil, scope: String? = nil, connection: UInt64 = 1, seed: UInt64 = 7) -> (other: Harness, record: JobRecord) {
        var other = Harness(seed: seed)
        let countdown = other.countdown(key: key, seconds: 60, scope: scope, connection: connection)
        let record = other.storedRecords.first { $0.id == countdown.id.rawValue }!
        return (other, record)
    }

    @Test("one daemon alone answers unknown_job for a job it does not have, and asks no store")
    func aloneAsksNothing() {
        var h = Harness()
        let replies = h.request(.status(StatusRequest(job: "cd_elsewhere01"))).replies
        #expect(replies.first.map { if case .failure(let error) = $0.result { error.code == .unknownJob } else { false } } == true)
        #expect(h.request(.wait(WaitRequest(job: "cd_elsewhere01"))).replies.count == 1)
        #expect(h.request(.cancel(JobSelector(scope: "s"))).replies.count == 1)
        #expect(h.clusterQueries.isEmpty)
    }

    @Test("status of a job another daemon holds is read from the store, for its owner and root only")
    func statusElsewhere() throws {
        var h = Self.clustered()
        let (_, record) = Self.rowElsewhere()
        #expect(h.request(.status(StatusRequest(job: record.id, attempts: true))).replies.isEmpty, "the reply waits for the store")
        let query = try #require(h.clusterQueries.last)
        #expect(query.operation == .status(job: record.id, attempts: true) && query.uid == 1000)
        var withLog = record
        withLog.attempts = []
        let replies = h.handle(.clusterAnswered(query, .found(withLog))).replies
        guard case .success(.job(let result))? = replies.first?.result else { throw TestFailure("no job: \(replies)") }
        #expect(result.job.id == record.id && result.job.state == .active && result.job.kind == .countdown)
        #expect(result.job.attempts == [])
        // Another uid is told there is no such job; root sees it.
        _ = h.request(.status(StatusRequest(job: record.id)), connection: 2)
        let other = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(record))).replies
        #expect(other.first.map { if case .failure(let error) = $0.result { error.code == .unknownJob } else { false } } == true)
        _ = h.request(.status(StatusRequest(job: record.id)), connection: 3)
        let root = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(record))).replies
        #expect(root.first.map { if case .success(.job) = $0.result { true } else { false } } == true)
        // No row: unknown_job. A store that cannot be read: storage_unavailable.
        _ = h.request(.status(StatusRequest(job: "cd_nowhere0001")))
        let none = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(nil))).replies
        #expect(none.first.map { if case .failure(let error) = $0.result { error.code == .unknownJob } else { false } } == true)
        _ = h.request(.status(StatusRequest(job: record.id)))
        let down = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .unavailable("connection refused"))).replies
        #expect(down.first.map { if case .failure(let error) = $0.result { error.code == .storageUnavailable } else { false } } == true)
        // A job this daemon holds is answered here, without the store.
        let local = h.countdown(key: nil, seconds: 5)
        let asked = h.clusterQueries.count
        #expect(h.request(.status(StatusRequest(job: local.id.rawValue))).replies.count == 1)
        #expect(h.clusterQueries.count == asked)
    }

    @Test("wait on a job another daemon holds replies at once when it has ended, else when the store says it ended")
    func waitElsewhere() throws {
        var h = Self.clustered()
        var (other, record) = Self.rowElsewhere()
        #expect(h.request(.wait(WaitRequest(job: record.id))).replies.isEmpty)
        let query = try #require(h.clusterQueries.last)
        #expect(query.operation == .wait(job: record.id))
        #expect(h.handle(.clusterAnswered(query, .found(record))).replies.isEmpty, "active: the waiter stays")
        // The job ends on the other daemon; the store reads its row back here.
        _ = other.request(.cancel(JobSelector(job: record.id)))
        record = try #require(other.storedRecords.first { $0.id == record.id })
        #expect(record.state == .cancelled)
        let ended = h.handle(.waitedJobEnded(record)).replies
        guard case .success(.job(let result))? = ended.first?.result else { throw TestFailure("no reply: \(ended)") }
        #expect(ended.count == 1 && ended.first?.connection == ConnectionID(1))
        #expect(result.job.state == .cancelled && result.job.reason == .requested)
        // Told twice, or of a job no one here waits for: nothing more.
        #expect(h.handle(.waitedJobEnded(record)).replies.isEmpty)
        // A wait on a job that already ended replies at once.
        _ = h.request(.wait(WaitRequest(job: record.id)))
        let already = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(record))).replies
        #expect(already.first.map { if case .success(.job(let r)) = $0.result { r.job.state == .cancelled } else { false } } == true)
        // A waiter whose connection closed is not replied to.
        var second = Self.rowElsewhere(seed: 8).record
        _ = h.request(.wait(WaitRequest(job: second.id)), connection: 1)
        _ = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(second)))
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        second.state = .cancelled
        #expect(h.handle(.waitedJobEnded(second)).replies.isEmpty)
        // A job whose row went before its end was read: the waiter is answered unknown_job.
        let third = Self.rowElsewhere(seed: 9).record
        _ = h.handle(.connectionOpened(ConnectionID(1), Peer(uid: 1000, pid: 10)))
        _ = h.request(.wait(WaitRequest(job: third.id)))
        _ = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(third)))
        #expect(h.handle(.waitedJobGone(JobID(third.id))).errorCodes == [.unknownJob])
        #expect(h.handle(.waitedJobGone(JobID(third.id))).replies.isEmpty, "answered once")
    }

    @Test("cancel of a job or a key another daemon holds goes to the store; a scope is cancelled here and there")
    func cancelElsewhere() throws {
        var h = Self.clustered()
        let (_, record) = Self.rowElsewhere(key: "tea")
        #expect(h.request(.cancel(JobSelector(job: record.id))).replies.isEmpty)
        let byJob = try #require(h.clusterQueries.last)
        #expect(byJob.operation == .cancel(JobSelector(job: record.id)))
        let cancelled = h.handle(.clusterAnswered(byJob, .cancelled([record.id], found: true))).replies
        #expect(cancelled.first.map { if case .success(.cancelled(let r)) = $0.result { r.cancelled == [record.id] } else { false } } == true)
        // Not found in the store: unknown_job, as on one daemon.
        _ = h.request(.cancel(JobSelector(key: "coffee")))
        let missing = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .cancelled([], found: false))).replies
        #expect(missing.first.map { if case .failure(let e) = $0.result { e.code == .unknownJob && e.message.contains("coffee") } else { false } } == true)
        // A key this daemon holds is cancelled here alone.
        let local = h.countdown(key: "tea", seconds: 60, scope: "kitchen")
        let asked = h.clusterQueries.count
        #expect(h.request(.cancel(JobSelector(key: "tea"))).replies.count == 1)
        #expect(h.clusterQueries.count == asked)
        // A scope: the store cancels the other daemons' jobs first, then this daemon its own, in one reply.
        let mine = h.countdown(key: nil, seconds: 60, scope: "kitchen")
        #expect(h.request(.cancel(JobSelector(scope: "kitchen"))).replies.isEmpty)
        let byScope = try #require(h.clusterQueries.last)
        #expect(h.scheduler.job(mine.id)?.state == .active, "nothing ends before the store answers")
        let both = h.handle(.clusterAnswered(byScope, .cancelled(["cd_elsewhere99"], found: true))).replies
        #expect(both.first.map { if case .success(.cancelled(let r)) = $0.result { r.cancelled == [mine.id.rawValue, "cd_elsewhere99"] } else { false } } == true)
        #expect(h.scheduler.job(mine.id)?.state == .cancelled && h.scheduler.job(local.id)?.state == .cancelled)
        // Two selectors at once is the client's mistake, answered here.
        #expect(h.request(.cancel(JobSelector(job: record.id, key: "tea"))).replies.count == 1)
        #expect(h.clusterQueries.last == byScope)
    }

    @Test("a watch of a job another daemon holds streams the events its holder sends, until the last; a holder that never sends the end is ended by the row")
    func watchElsewhere() throws {
        var h = Self.clustered()
        var (other, record) = Self.rowElsewhere()
        let id = JobID(record.id)
        #expect(h.request(.watch(JobSelector(job: record.id))).replies.isEmpty)
        let query = try #require(h.clusterQueries.last)
        #expect(query.operation == .watch(job: record.id))
        let watching = h.handle(.clusterAnswered(query, .found(record))).replies
        #expect(watching.first.map { if case .success(.watching(let w)) = $0.result { w.streaming && w.job?.id == record.id } else { false } } == true)
        let tag = try #require(watching.first?.id)

        // The holder hears of the watch: from then on its events go to the cluster, for daemon "A".
        var configuration = SchedulerConfiguration()
        configuration.clustered = true
        other.scheduler.configuration = configuration
        _ = other.handle(.watchedElsewhere(id, by: "A"))
        _ = other.handle(.watchedElsewhere(id, by: "A"))
        other.advance(1 * Harness.second)
        let ticked = other.fireAtArmedDeadline()
        let sent = ticked.events.filter { $0.to.contains(Recipient(connection: .cluster, watch: .string("A"))) }
        #expect(sent.count == 1 && sent.first?.event.type == .tick, "one tick, sent once: \(ticked.events)")
        // Told that no one there watches any more, the holder stops sending (and ticking).
        _ = other.handle(.unwatchedElsewhere(id, by: "A"))
        other.advance(1 * Harness.second)
        #expect(other.fireAtArmedDeadline().events.isEmpty)
        _ = other.handle(.watchedElsewhere(id, by: "A"))
        let cancelled = other.request(.cancel(JobSelector(job: record.id))).events
        let end = try #require(cancelled.first { $0.to.contains(Recipient(connection: .cluster, watch: .string("A"))) }?.event)
        #expect(end.type == .cancelled)

        // This daemon passes them to its watcher, in order, and the end closes the stream.
        for event in [try #require(sent.first?.event), end] {
            let delivered = h.handle(.eventElsewhere(event)).events
            #expect(delivered.map(\.event) == [event] && delivered.first?.to == [Recipient(connection: ConnectionID(1), watch: tag)])
        }
        #expect(h.handle(.eventElsewhere(end)).events.isEmpty, "the stream is over")
        #expect(h.unwatchedElsewhere.isEmpty, "the last event needs no unwatch")
        // The holder stops sending once told no one here watches any more.
        #expect(h.handle(.eventElsewhere(try #require(sent.first?.event))).events.isEmpty)
        #expect(h.unwatchedElsewhere == [id])
        record = try #require(other.storedRecords.first { $0.id == record.id })
        #expect(h.handle(.waitedJobEnded(record)).events.isEmpty, "ended once")

        // A holder that died sends no end: the row's end closes the stream.
        let second = Self.rowElsewhere(seed: 8).record
        _ = h.request(.watch(JobSelector(job: second.id)))
        _ = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(second)))
        var ended = second
        ended.state = .cancelled
        let closing = h.handle(.waitedJobEnded(ended)).events
        #expect(closing.map(\.event.type) == [.cancelled] && closing.first?.event.job == second.id)
        #expect(h.handle(.waitedJobEnded(ended)).events.isEmpty)
        // An ended job's watch answers at once and does not stream; an ephemeral job is never watched from elsewhere.
        _ = h.request(.watch(JobSelector(job: second.id)))
        let done = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .found(ended))).replies
        #expect(done.first.map { if case .success(.watching(let w)) = $0.result { !w.streaming } else { false } } == true)
        var third = Harness()
        let ephemeral = third.countdown(key: nil, seconds: 60, ephemeral: true)
        _ = third.handle(.watchedElsewhere(ephemeral.id, by: "A"))
        third.advance(1 * Harness.second)
        #expect(third.fireAtArmedDeadline().events.allSatisfy { $0.to.isEmpty }, "no ticks, and no recipient for its expiry")
    }

    /// A dead request job on "another daemon", as its row reads.
    private static func deadElsewhere(key: String? = nil, seed: UInt64 = 7) throws -> (other: Harness, record: JobRecord) {
        var other = Harness(seed: seed)
        let (reply, effects) = other.submitted(submitSpec(maxAttempts: 1, key: key))
        let send = try #require(effects.sends.first)
        _ = other.handle(.httpFinished(send.job, attempt: send.attempt, Fixture.answer(503)))
        let record = try #require(other.storedRecords.first { $0.id == reply.job.id })
        #expect(record.state == .dead)
        return (other, record)
    }

    @Test("retry on a shared store goes through the store, which gives the row to one daemon; a row taken from another daemon is restored here and retried, and the other forgets it")
    func retryElsewhere() throws {
        var h = Self.clustered()
        var (other, record) = try Self.deadElsewhere()
        record.attempts = nil
        let id = JobID(record.id)
        #expect(h.request(.retry(RetryRequest(job: record.id))).replies.isEmpty)
        let query = try #require(h.clusterQueries.last)
        #expect(query.operation == .retry(job: record.id))
        // Taken: restored here and retried at once, with fresh attempts, acknowledged after the commit.
        let retried = h.handle(.clusterAnswered(query, .retried(record, taken: true)))
        #expect(retried.sends.map(\.job) == [id] && h.scheduler.job(id)?.delivery?.attempts == 1)
        #expect(retried.replies.first.map { if case .success(.job(let r)) = $0.result { r.job.state == .active } else { false } } == true)
        // The old holder forgets the job, and does not delete its row.
        let forgotten = other.handle(.takenElsewhere(id))
        #expect(other.scheduler.job(id) == nil)
        #expect(!forgotten.contains { if case .persist = $0 { true } else { false } })

        // Not taken: the reply says why, from the row.
        let (_, keyed) = try Self.deadElsewhere(key: "k", seed: 8)
        _ = h.request(.retry(RetryRequest(job: keyed.id)))
        let held = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .retried(keyed, taken: false))).replies
        #expect(held.first.map { if case .failure(let e) = $0.result { e.code == .badField && e.message.contains("'k'") } else { false } } == true)
        _ = h.request(.retry(RetryRequest(job: "rq_nosuchjob01")))
        let none = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .retried(nil, taken: false))).replies
        #expect(none.first.map { if case .failure(let e) = $0.result { e.code == .unknownJob } else { false } } == true)
        _ = h.request(.retry(RetryRequest(job: record.id)), connection: 2)
        #expect(h.clusterQueries.count == 3, "a job this daemon holds is checked here first: another uid's is unknown")

        // A local durable job is retried only once the store gave it to this daemon.
        var mine = Self.clustered()
        let (local, effects) = mine.submitted(submitSpec(maxAttempts: 1))
        let send = try #require(effects.sends.first)
        _ = mine.handle(.httpFinished(send.job, attempt: send.attempt, Fixture.answer(503)))
        let localID = JobID(local.job.id)
        #expect(mine.request(.retry(RetryRequest(job: local.job.id))).sends.isEmpty)
        let lost = mine.handle(.clusterAnswered(try #require(mine.clusterQueries.last), .retried(mine.storedRecords.first { $0.id == local.job.id }, taken: false)))
        #expect(lost.sends.isEmpty && mine.scheduler.job(localID)?.state == .dead, "another daemon retried it first")
        _ = mine.request(.retry(RetryRequest(job: local.job.id)))
        let won = mine.handle(.clusterAnswered(try #require(mine.clusterQueries.last), .retried(mine.storedRecords.first { $0.id == local.job.id }, taken: true)))
        #expect(won.sends.map(\.job) == [localID])
        #expect(other.handle(.takenElsewhere(JobID("rq_nosuchjob01"))).isEmpty)
    }

    @Test("list on a shared store merges the rows other daemons hold, read from the store, with this daemon's jobs in creation order, and pages through both")
    func listElsewhere() throws {
        var h = Self.clustered()
        var other = Harness(seed: 9)
        var ids: [String] = []
        for second in 0..<4 {
            if second % 2 == 0 {
                ids.append(h.countdown(key: nil, seconds: 600).id.rawValue)
            } else {
                ids.append(other.countdown(key: nil, seconds: 600).id.rawValue)
            }
            h.advance(Harness.second)
            other.advance(Harness.second)
        }
        let rows = other.storedRecords.sorted { $0.createdAt < $1.createdAt }
        func page(_ limit: Int, after: String? = nil, answer: ([JobRecord], Bool)) throws -> JobListResult {
            #expect(h.request(.list(ListRequest(limit: limit, after: after))).replies.isEmpty, "the page waits for the store")
            let query = try #require(h.clusterQueries.last)
            #expect(query.operation == .list(ListRequest(limit: limit, after: after), limit: limit))
            let replies = h.handle(.clusterAnswered(query, .listed(answer.0, more: answer.1))).replies
            guard case .success(.jobs(let result))? = replies.first?.result else { throw TestFailure("no page: \(replies)") }
            return result
        }
        let all = try page(10, answer: (rows, false))
        #expect(all.jobs.map(\.id) == ids && all.next == nil)
        // Two a page: the store gives two rows and says more follow.
        let first = try page(2, answer: (rows, true))
        #expect(first.jobs.map(\.id) == Array(ids[0..<2]))
        let next = try #require(first.next)
        let second = try page(2, after: next, answer: ([rows[1]], false))
        #expect(second.jobs.map(\.id) == Array(ids[2..<4]), "the store's row after the cursor, and this daemon's")
        // A page cannot pass the last row the store gave while it has more: a row may come between.
        let bounded = try page(3, answer: ([rows[0]], true))
        #expect(bounded.jobs.map(\.id) == Array(ids[0..<2]) && bounded.next != nil)
        // Another uid sees none of these.
        _ = h.request(.list(ListRequest()), connection: 2)
        let theirs = h.handle(.clusterAnswered(try #require(h.clusterQueries.last), .listed(rows, more: false))).replies
        #expect(theirs.first.map { if case .success(.jobs(let r)) = $0.result { r.jobs.isEmpty } else { false } } == true)
    }
}
