import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("list: pages from ordered indexes, a slice per turn")
struct ListSliceTests {
    /// `count` ephemeral countdowns of connection 1, registered one after another, oldest first.
    private static func harness(countdowns count: Int, configuration: SchedulerConfiguration = SchedulerConfiguration()) -> (Harness, [JobID]) {
        var h = Harness(configuration: configuration)
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

    /// One whole page: the request and the later turns it needs.
    private static func page(_ h: inout Harness, _ filter: ListRequest, connection: UInt64 = 1) -> JobListResult? {
        let first = h.request(.list(filter), connection: connection)
        let (rest, _) = finishLists(&h)
        return listed(first + rest)
    }

    /// Every job `filter` selects, page after page of `pageSize`.
    private static func pages(_ h: inout Harness, _ filter: ListRequest, pageSize: Int, connection: UInt64 = 1) -> (ids: [String], pages: Int) {
        var filter = filter
        filter.limit = pageSize
        var ids: [String] = []
        var pages = 0
        while pages < 10_000 {
            guard let page = page(&h, filter, connection: connection) else { return (ids, -1) }
            pages += 1
            #expect(page.jobs.count <= pageSize)
            ids += page.jobs.map(\.id)
            guard let next = page.next else { break }
            #expect(page.truncated)
            filter.after = next
        }
        return (ids, pages)
    }

    @Test("a page that one slice covers is answered at once; next leads to the rest, and the last page has none")
    func smallListAtOnce() {
        var (h, ids) = Self.harness(countdowns: 10)
        let effects = h.request(.list(ListRequest(limit: 5)))
        let first = Self.listed(effects)
        #expect(first?.jobs.map(\.id) == ids.prefix(5).map(\.rawValue))
        #expect(first?.truncated == true)
        #expect(!h.scheduler.hasListsInProgress)
        let second = Self.listed(h.request(.list(ListRequest(limit: 5, after: first?.next))))
        #expect(second?.jobs.map(\.id) == ids.suffix(5).map(\.rawValue))
        #expect(second?.next == nil && second?.truncated == false)
    }

    @Test("limit defaults to 100 and takes 1 to 1,000; a cursor the daemon did not give is refused")
    func limits() {
        var (h, ids) = Self.harness(countdowns: 150)
        let first = Self.page(&h, ListRequest())
        #expect(first?.jobs.map(\.id) == ids.prefix(100).map(\.rawValue))
        for bad in [ListRequest(limit: 0), ListRequest(limit: 1_001), ListRequest(after: "nope"), ListRequest(after: "12:xx_1")] {
            guard case .failure(let error)? = h.request(.list(bad)).replies.first?.result else {
                Issue.record("\(bad) was not refused")
                continue
            }
            #expect(error.code == .badField)
        }
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

    @Test("lists in progress take turns by connection: one list from another connection is answered in the turn after 31 pipelined ones begin, not after them all")
    func listsTakeTurnsByConnection() {
        var (h, _) = Self.harness(countdowns: 10)
        var turn = (0..<32).map { index in
            SchedulerEvent.request(ConnectionID(1), Request(id: .number(Int64(1_000 + index)), body: .list(ListRequest(limit: 5))))
        }
        turn.append(.request(ConnectionID(2), Request(id: .number(7), body: .list(ListRequest(limit: 5)))))
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: turn, at: h.now, into: &effects)
        #expect(effects.replies.count == 1, "one slice a turn")
        var turns = 0
        var answered = false
        while !answered, turns < 100 {
            turns += 1
            answered = h.handle(.continueLists).replies.contains { $0.connection == ConnectionID(2) }
        }
        #expect(answered && turns <= 2, "answered after \(turns) turns")
        #expect(Self.finishLists(&h).replies.replies.count == 30, "the rest of the pipelined lists")
    }

    @Test("a filter reads only its leaves: 3 cancelled jobs among 10,000 active are listed at once")
    func filterReadsItsLeaves() {
        var (h, ids) = Self.harness(countdowns: 10_000)
        for id in ids.suffix(3) { _ = h.request(.cancel(JobSelector(job: id.rawValue))) }
        let effects = h.request(.list(ListRequest(state: .cancelled, limit: 10)))
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.suffix(3).map(\.rawValue))
        #expect(!h.scheduler.hasListsInProgress)
        let active = Self.pages(&h, ListRequest(state: .active), pageSize: 1_000)
        #expect(active.ids == ids.dropLast(3).map(\.rawValue))
        #expect(active.pages == 10)
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

    @Test("a job that ends while its page is made shows as it is when the merge reaches it; a new job comes last")
    func changesWhileListing() {
        var (h, ids) = Self.harness(countdowns: 1_500)
        _ = h.request(.list(ListRequest(kind: .countdown, limit: 1_000)))
        let late = h.countdown(key: "late", seconds: 600, ephemeral: true).id
        _ = h.request(.cancel(JobSelector(job: ids[900].rawValue)))
        let (effects, _) = Self.finishLists(&h)
        let page = Self.listed(effects)
        #expect(page?.jobs.map(\.id) == ids.prefix(1_000).map(\.rawValue))
        #expect(page?.jobs[900].state == .cancelled)
        let rest = Self.pages(&h, ListRequest(kind: .countdown, after: page?.next), pageSize: 1_000)
        #expect(rest.ids == (ids.suffix(500) + [late]).map(\.rawValue))
    }

    @Test("a page stops before its views would pass maxReplyBytes, and next goes on from there")
    func byteBudget() {
        var configuration = SchedulerConfiguration()
        configuration.maxReplyBytes = 4_000
        var (h, ids) = Self.harness(countdowns: 100, configuration: configuration)
        let first = Self.page(&h, ListRequest(limit: 1_000))
        let count = first?.jobs.count ?? 0
        #expect(count > 5 && count < 100, "\(count) jobs in 4,000 bytes")
        var writer = JSONWriter()
        if let first { first.write(to: &writer) }
        #expect(writer.bytes.count <= 4_000 + 200)
        let all = Self.pages(&h, ListRequest(), pageSize: 1_000)
        #expect(all.ids == ids.map(\.rawValue))
        #expect(all.pages > 1)
    }

    @Test("a list whose connection closed is dropped, and nothing is sent to it")
    func closedConnection() {
        var (h, _) = Self.harness(countdowns: 5_000)
        _ = h.request(.list(ListRequest(limit: 1_000)))
        #expect(h.scheduler.hasListsInProgress)
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        #expect(!h.scheduler.hasListsInProgress)
        #expect(h.handle(.continueLists).replies.isEmpty)
    }

    @Test("forgotten jobs leave the index at once")
    func forgottenLeave() {
        var configuration = SchedulerConfiguration()
        configuration.retentionNanos = second
        var (h, ids) = Self.harness(countdowns: 3_000, configuration: configuration)
        for id in ids.prefix(2_000) { _ = h.request(.cancel(JobSelector(job: id.rawValue))) }
        #expect(h.scheduler.table.listIndex.count == 3_000)
        h.advance(2 * second)
        _ = h.request(.status(StatusRequest()))
        for _ in 0..<20 where h.scheduler.table.count > 1_000 { _ = h.fireAtArmedDeadline() }
        #expect(h.scheduler.table.count == 1_000)
        #expect(h.scheduler.table.listIndex.count == 1_000)
        #expect(Self.pages(&h, ListRequest(), pageSize: 1_000).ids == ids.suffix(1_000).map(\.rawValue))
    }

    @Test("restored jobs are listed oldest first, jobs made in one turn in the order they were made")
    func restoredOrder() {
        var h = Harness()
        var ids: [JobID] = []
        for index in 0..<5 {
            ids.append(h.countdown(key: "k\(index)", seconds: 600).id)
            if index.isMultiple(of: 2) { h.advance(second) }
        }
        _ = h.request(.cancel(JobSelector(job: ids[1].rawValue)))
        var (restarted, _) = h.restarted()
        let effects = restarted.request(.list(ListRequest()))
        #expect(Self.listed(effects)?.jobs.map(\.id) == ids.map(\.rawValue))
        let later = restarted.countdown(key: "later", seconds: 600).id
        #expect(Self.listed(restarted.request(.list(ListRequest())))?.jobs.last?.id == later.rawValue)
    }

    @Test("every filter, paged with any page size, gives what a filter over all jobs gives, for each caller", arguments: [1, 2, 3] as [UInt64])
    func agreesWithAFullScan(seed: UInt64) {
        var random = RandomSource(seed: seed)
        var configuration = SchedulerConfiguration()
        configuration.maxReplyBytes = 30_000
        var h = Harness(configuration: configuration)
        let scopes = [nil, "a", "b"]
        let keys = [nil, "x", "y", "z"]
        var ids: [JobID] = []
        for _ in 0..<600 {
            let connection = UInt64(1 + random.below(3))
            switch random.below(10) {
            case 0..<6:
                let key = keys[random.below(keys.count)]
                let seconds = Int64(1 + random.below(20))
                ids.append(h.countdown(key: key, seconds: seconds, scope: scopes[random.below(scopes.count)], ephemeral: true, connection: connection).id)
            case 6..<8 where !ids.isEmpty:
                _ = h.request(.cancel(JobSelector(job: ids[random.below(ids.count)].rawValue)), connection: 3)
            default:
                h.advance(Int64(random.below(3)) * second)
                _ = h.request(.status(StatusRequest()))
                for _ in 0..<5 { _ = h.fireAtArmedDeadline() }
            }
        }
        let table = h.scheduler.table
        let everything = ids.compactMap { table[$0] }.sorted { ListIndex.entry($0) < ListIndex.entry($1) }
        for _ in 0..<60 {
            let filter = ListRequest(
                state: random.below(3) == 0 ? nil : JobState.allCases[random.below(JobState.allCases.count)],
                kind: random.below(2) == 0 ? nil : .countdown, scope: random.below(2) == 0 ? nil : scopes[random.below(scopes.count)],
                key: random.below(2) == 0 ? nil : keys[random.below(keys.count)])
            let connection = UInt64(1 + random.below(3))
            let uid: UInt32 = [1: 1000, 2: 1001, 3: 0][connection]!
            let expected = everything.filter { job in
                (uid == 0 || job.owner == uid) && filter.state.map { $0 == job.state } ?? true && filter.kind.map { $0 == job.kind } ?? true
                    && filter.scope.map { $0 == job.scope } ?? true && filter.key.map { $0 == job.key } ?? true
            }
            let listed = Self.pages(&h, filter, pageSize: 1 + random.below(40), connection: connection)
            #expect(listed.ids == expected.map(\.id.rawValue), "\(filter) for uid \(uid)")
        }
    }
}

extension RandomSource {
    /// A uniform number in 0..<bound.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
