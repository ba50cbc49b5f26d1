import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("A list over many jobs is served a slice per turn")
struct ListSliceTests {
    /// `count` ephemeral countdowns of connection 1, registered one after another, oldest first.
    private static func harness(countdowns count: Int) -> (Harness, [JobID]) {
        var h = Harness()
        var ids: [JobID] = []
        for index in 0..<count {
            ids.append(h.countdown(key: "k\(index)", seconds: 600, ephemeral: true).id)
        }
        return (h, ids)
    }

    /// Sends `.continueLists` until no list is in progress; returns the replies and the turns taken.
    private static func finishLists(_ h: inout Harness) -> (replies: [SchedulerEffect], turns: Int) {
        var effects: [SchedulerEffect] = []
        var turns = 0
        while h.scheduler.hasListsInProgress, turns < 1_000 {
            effects += h.handle(.continueLists)
            turns += 1
        }
        return (effects, turns)
    }

    private static func listed(_ effects: [SchedulerEffect]) -> JobListResult? {
        guard case .success(.jobs(let result))? = effects.replies.first?.result else { return nil }
        return result
    }

    @Test("a list that one slice covers is answered at once")
    func smallListAtOnce() {
        var (h, ids) = Self.harness(countdowns: 10)
        let effects = h.request(.list(ListRequest(limit: 5)))
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.prefix(5).map(\.rawValue))
        #expect(Self.listed(effects)?.truncated == true)
        #expect(!h.scheduler.hasListsInProgress)
    }

    @Test("32 lists in one turn walk one slice between them: the first is answered in that turn, the rest one per later turn")
    func oneSlicePerTurn() {
        var (h, ids) = Self.harness(countdowns: 10)
        let lists = (0..<32).map { index in
            SchedulerEvent.request(ConnectionID(1), Request(id: .number(Int64(1_000 + index)), body: .list(ListRequest(limit: 5))))
        }
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: lists, at: h.now, into: &effects)
        #expect(effects.replies.count == 1)
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.prefix(5).map(\.rawValue))
        let (rest, turns) = Self.finishLists(&h)
        #expect(rest.replies.count == 31)
        #expect(turns == 31)
    }

    @Test("a list over 10,000 jobs answers after later turns, oldest first, and each turn visits at most one slice")
    func spansTurns() {
        var (h, ids) = Self.harness(countdowns: 10_000)
        let first = h.request(.list(ListRequest(state: .cancelled, limit: 10)))
        #expect(first.replies.isEmpty)
        #expect(h.scheduler.hasListsInProgress)
        // Cancelled while the list waits: the walk has not reached them yet, so it finds them.
        for id in ids.suffix(3) { _ = h.request(.cancel(JobSelector(job: id.rawValue))) }
        let (effects, turns) = Self.finishLists(&h)
        #expect(turns == (10_000 + ListQuery.visitsPerSlice - 1) / ListQuery.visitsPerSlice - 1)
        #expect(effects.replies.count == 1)
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.suffix(3).map(\.rawValue))

        let all = h.request(.list(ListRequest(limit: 10_000)))
        let (rest, _) = Self.finishLists(&h)
        #expect(Self.listed(all + rest)?.jobs.map(\.id) == ids.map(\.rawValue))
        #expect(Self.listed(all + rest)?.truncated == false)
    }

    @Test("a slice makes at most a slice's worth of views")
    func viewsPerSlice() {
        var (h, ids) = Self.harness(countdowns: 1_000)
        let first = h.request(.list(ListRequest(limit: 1_000)))
        #expect(first.replies.isEmpty)
        let (effects, turns) = Self.finishLists(&h)
        #expect(turns == 1_000 / ListQuery.viewsPerSlice)
        #expect(Self.listed(effects)?.jobs.count == ids.count)
    }

    @Test("jobs created after a list started are not in it; jobs that ended meanwhile show as they are when reached")
    func changesWhileListing() {
        var (h, ids) = Self.harness(countdowns: 5_000)
        _ = h.request(.list(ListRequest(kind: .countdown, limit: 100_000)))
        _ = h.countdown(key: "late", seconds: 600, ephemeral: true)
        _ = h.request(.cancel(JobSelector(job: ids.last!.rawValue)))
        let (effects, _) = Self.finishLists(&h)
        let jobs = Self.listed(effects)?.jobs ?? []
        #expect(jobs.map(\.id) == ids.map(\.rawValue))
        #expect(jobs.last?.state == .cancelled)
    }

    @Test("a list whose connection closed is dropped, and nothing is sent to it")
    func closedConnection() {
        var (h, _) = Self.harness(countdowns: 5_000)
        _ = h.request(.list(ListRequest(limit: 100_000)))
        #expect(h.scheduler.hasListsInProgress)
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        #expect(!h.scheduler.hasListsInProgress)
        #expect(h.handle(.continueLists).replies.isEmpty)
    }

    @Test("forgotten jobs leave the walk's order once enough are gone, never while a list walks it")
    func orderCompaction() {
        var configuration = SchedulerConfiguration()
        configuration.retentionNanos = second
        var h = Harness(configuration: configuration)
        var ids: [JobID] = []
        for index in 0..<3_000 { ids.append(h.countdown(key: "k\(index)", seconds: 600, ephemeral: true).id) }
        for id in ids.prefix(2_000) { _ = h.request(.cancel(JobSelector(job: id.rawValue))) }
        _ = h.request(.list(ListRequest(state: .active, limit: 100_000)))
        #expect(h.scheduler.hasListsInProgress)
        h.advance(2 * second)
        _ = h.request(.status(StatusRequest()))
        for _ in 0..<20 where h.scheduler.table.count > 1_000 { _ = h.fireAtArmedDeadline() }
        #expect(h.scheduler.table.count == 1_000)
        #expect(h.scheduler.table.order.ids.count == 3_000)
        // The shrink pass is armed; its slices walk the order but may not move positions yet.
        for _ in 0..<10 { _ = h.fireAtArmedDeadline() }
        #expect(h.scheduler.table.order.ids.count == 3_000)
        let (effects, _) = Self.finishLists(&h)
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.suffix(1_000).map(\.rawValue))
        _ = h.fireAtArmedDeadline()
        #expect(h.scheduler.table.order.ids.count == 1_000)
        #expect(h.scheduler.table.order.ids == Array(ids.suffix(1_000)), "the held jobs, in order")
    }

    @Test("restored jobs are listed oldest first")
    func restoredOrder() {
        var h = Harness()
        var ids: [JobID] = []
        for index in 0..<5 {
            ids.append(h.countdown(key: "k\(index)", seconds: 600).id)
            h.advance(second)
        }
        _ = h.request(.cancel(JobSelector(job: ids[1].rawValue)))
        var (restarted, _) = h.restarted()
        let effects = restarted.request(.list(ListRequest()))
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.map(\.rawValue))
    }
}
