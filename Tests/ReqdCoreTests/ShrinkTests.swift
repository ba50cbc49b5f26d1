import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("Tables shrink after a burst, in bounded slices, and a steady load never thrashes")
struct ShrinkTests {
    @Test("a dictionary shrinks only below a quarter of its capacity, and halving a load never shrinks it")
    func hysteresis() {
        var table: [Int: Int] = [:]
        for key in 0..<10_000 { table[key] = key }
        let full = table.capacity
        for round in 0..<5 {
            for key in 0..<5_000 { table[key] = nil }
            var budget = ShrinkBudget()
            let through = table.shrink(&budget)
            #expect(through)
            #expect(budget.shrunk == 0, "round \(round)")
            for key in 0..<5_000 { table[key] = key }
        }
        #expect(table.capacity == full)
        for key in 0..<9_000 { table[key] = nil }
        var budget = ShrinkBudget()
        let through = table.shrink(&budget)
        #expect(through)
        #expect(budget.shrunk == 1)
        #expect(table.capacity < full / 4)
        #expect(table.count == 1_000)
        #expect((9_000..<10_000).allSatisfy { table[$0] == $0 })
    }

    @Test("a move that does not fit what is left of a slice waits for the next, unless it is the slice's first; more than a slice never moves")
    func budgetBounds() {
        var set = Set(0..<40_000)
        set.subtract(0..<36_000)
        var budget = ShrinkBudget()
        budget.left = 100
        _ = budget.take(50)
        var through = set.shrink(&budget)
        #expect(!through)
        #expect(budget.shrunk == 1, "only the earlier move")
        budget = ShrinkBudget()
        budget.left = 100
        through = set.shrink(&budget)
        #expect(through)
        #expect(budget.shrunk == 1, "a slice's first move goes ahead")
        #expect(set.count == 4_000)

        var large = Set(0..<100_000)
        large.subtract(0..<80_000)
        budget = ShrinkBudget()
        through = large.shrink(&budget)
        #expect(through)
        #expect(budget.shrunk == 0, "20,000 moves are more than one slice: left until fewer remain")
    }

    @Test("a sharded table shrinks shard by shard across slices, each within its budget")
    func shardedSlices() {
        var table = ShardedDictionary<Int, Int>()
        for key in 0..<400_000 { table[key] = key }
        for key in 0..<399_000 { table[key] = nil }
        let before = table.capacity
        var next = 0
        var slices = 0
        while true {
            var budget = ShrinkBudget()
            budget.left = 1_000
            let through = table.shrink(from: &next, &budget)
            #expect(budget.left >= -1)
            slices += 1
            if through { break }
        }
        #expect(slices > 1)
        #expect(table.capacity * 4 < before)
        #expect(table.count == 1_000)
        #expect((399_000..<400_000).allSatisfy { table[$0] == $0 })
    }

    /// `count` ephemeral countdowns an hour out, spread over scopes `s0`, `s1`, …, on a scheduler
    /// that keeps ended jobs for a second.
    private static func countdowns(_ count: Int, scopes: Int) -> Harness {
        var configuration = SchedulerConfiguration()
        configuration.retentionNanos = second
        var h = Harness(configuration: configuration)
        for index in 0..<count {
            _ = h.countdown(key: "k\(index)", seconds: 3_600, scope: "s\(index % scopes)", ephemeral: true)
        }
        return h
    }

    /// Cancels every scope of `countdowns(_:scopes:)`, lets the retention pass, and sends a
    /// `status`, whose turn forgets the first share.
    private static func cancelPastRetention(_ h: inout Harness, scopes: Int) {
        for scope in 0..<scopes { _ = h.request(.cancel(JobSelector(scope: "s\(scope)"))) }
        h.advance(2 * second)
        _ = h.request(.status(StatusRequest()))
    }

    /// Fires the timer until every ended job due to be forgotten is, a share a turn.
    private static func forgetDue(_ h: inout Harness) {
        var turns = 0
        while h.scheduler.timers.contains(.retention), turns < 10_000 {
            _ = h.fireAtArmedDeadline()
            turns += 1
        }
    }

    /// Fires the timer until no shrink pass is armed; returns the slices taken and the most work
    /// one slice did.
    private static func runShrinkPass(_ h: inout Harness) -> (slices: Int, largest: Int) {
        var slices = 0
        var largest = 0
        while h.scheduler.shrinking.isScheduled, slices < 10_000 {
            _ = h.fireAtArmedDeadline()
            slices += 1
            largest = max(largest, h.scheduler.shrinking.lastSliceWork)
        }
        return (slices, largest)
    }

    @Test("after 100,000 countdowns are cancelled and forgotten, every index gives its capacity back, in slices, and memory is released")
    func burstShrinks() {
        var h = Self.countdowns(100_000, scopes: 4)
        let peakJobs = h.scheduler.table.countdowns.capacity
        let peakKeys = h.scheduler.table.keys.capacity
        let peakTimers = h.scheduler.timers.capacity
        #expect(peakJobs >= 100_000)
        Self.cancelPastRetention(&h, scopes: 4)
        Self.forgetDue(&h)
        #expect(h.scheduler.table.count == 0)

        let (slices, largest) = Self.runShrinkPass(&h)
        #expect(!h.scheduler.shrinking.isScheduled)
        #expect(h.armed == nil, "nothing is left to wake an idle daemon for")
        #expect(slices > 1, "the pass is spread over several turns")
        #expect(largest <= ShrinkBudget.slice + OwnerRetention.visitCost)
        #expect(h.scheduler.table.countdowns.capacity * 16 < peakJobs)
        #expect(h.scheduler.table.keys.capacity * 16 < peakKeys)
        #expect(h.scheduler.timers.capacity.entries * 16 < peakTimers.entries)
        #expect(h.scheduler.timers.capacity.positions * 16 < peakTimers.positions)
        #expect(h.scheduler.table.listIndex.count == 0 && h.scheduler.table.listIndex.leaves.isEmpty)
        #expect(h.scheduler.table.retained.isEmpty)
        #expect(h.scheduler.table.retained.capacity * 16 < 100_000)
        #expect(h.memoryReleases >= 1)
        let ownerListsEmpty = h.scheduler.table.retainedByOwner.values.allSatisfy(\.isEmpty)
        #expect(ownerListsEmpty, "the owner's list dropped its forgotten jobs")
        #expect(h.scheduler.table.staleRetainedCount == 0)
        #expect(h.disposals > 0, "what the shrinks replaced is freed off the scheduler's queue")

        // The tables still work at their new sizes, and an idle daemon is not woken again.
        let after = h.countdown(key: "k1", seconds: 1, ephemeral: true)
        #expect(h.scheduler.table[after.id]?.state == .active)
        #expect(h.scheduler.timers.isValid())
        _ = h.fireAtArmedDeadline()
        #expect(h.scheduler.table[after.id]?.state == .expired)
        #expect(h.armed == nil, "an ended job's retention needs no timer, and one end arms no pass")
    }

    @Test("a shrink slice waits for room between deadlines: it runs just after a deadline due within 2 ms of it, and among deadlines 1 ms apart after 25 ms at the latest")
    func slicesWaitForRoom() throws {
        var h = Self.countdowns(50_000, scopes: 4)
        Self.cancelPastRetention(&h, scopes: 4)
        Self.forgetDue(&h)
        let ms: Int64 = 1_000_000
        /// Registers a countdown due `milliseconds` from now.
        func due(in milliseconds: Int64) {
            let reply = h.request(.registerCountdown(CountdownSpec(key: nil, durationMs: milliseconds, ephemeral: true)))
            #expect(reply.replies.count == 1)
        }
        /// Fires the timer until a slice runs; the instant it ran.
        func nextSlice() -> Instant? {
            let slices = h.scheduler.shrinking.slicesRun
            for _ in 0..<1_000 {
                _ = h.fireAtArmedDeadline()
                if h.scheduler.shrinking.slicesRun > slices { return h.now.instant }
            }
            return nil
        }
        let start = try #require(h.scheduler.timers.priority(of: .shrink))
        h.advance(start.nanoseconds(since: h.now.instant) - 5 * ms)
        due(in: 6)
        #expect(nextSlice() == start.advanced(by: ms + 1), "the slice due at \(start) runs just after the deadline 1 ms later")
        #expect(h.scheduler.shrinking.isScheduled, "the pass takes more slices")

        let waitFrom = h.scheduler.timers.priority(of: .shrink)
        for milliseconds in Int64(1)...100 { due(in: milliseconds) }
        let ran = try #require(nextSlice())
        let waited = ran.nanoseconds(since: try #require(waitFrom))
        #expect(waited >= ShrinkPass.sliceWaitNanos && waited <= ShrinkPass.sliceWaitNanos + 2 * ms, "waited \(waited) ns")
    }

    @Test("the windows of 5,000 ended submits' fingerprints run out after their jobs' own pass: a pass then gives the dedupe index's room back")
    func dedupeShrinks() {
        var h = Harness()
        for index in 0..<5_000 {
            let spec = SubmitSpec(request: RequestSpec(method: "POST", url: "https://api.example/o/\(index)", body: "{}", maxAttempts: 1), ephemeral: true)
            for send in h.submitted(spec).effects.sends {
                _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200))))
            }
        }
        let peak = h.scheduler.dedupe.capacity
        #expect(peak >= 10_000, "both maps hold each fingerprint")
        var fired = 0
        while h.armed != nil, fired < 10_000 {
            _ = h.fireAtArmedDeadline()
            fired += 1
        }
        #expect(h.scheduler.dedupe.isEmpty)
        #expect(h.scheduler.dedupe.capacity * 16 < peak, "room for \(h.scheduler.dedupe.capacity) of \(peak)")
    }

    @Test("a pass gets past 40 scopes of 1,100 active jobs each: looking at a split set costs one unit, not one per shard")
    func manySplitSets() {
        var h = Self.countdowns(45 * 1_100, scopes: 45)
        for scope in 40..<45 { _ = h.request(.cancel(JobSelector(scope: "s\(scope)"))) }
        #expect(h.scheduler.table.activeJobs(inScope: "s0").capacity >= 256 * 2, "the scopes' sets are split")
        h.advance(2 * second)
        _ = h.request(.status(StatusRequest()))
        Self.forgetDue(&h)
        #expect(h.scheduler.shrinking.isScheduled)
        let (slices, _) = Self.runShrinkPass(&h)
        #expect(!h.scheduler.shrinking.isScheduled, "the pass ended")
        #expect(slices < 1_000)
        #expect(h.scheduler.table.count == 40 * 1_100)
    }

    @Test("a steady load (32,000 active, an eighth replaced every 2 s, ended jobs kept 10 s) never shrinks a table")
    func steadyLoad() {
        var configuration = SchedulerConfiguration()
        configuration.retentionNanos = 10 * second
        var h = Harness(configuration: configuration)
        var live: [JobID] = []
        var next = 0
        func register(_ count: Int) {
            for _ in 0..<count {
                live.append(h.countdown(key: "k\(next)", seconds: 600, scope: "steady", ephemeral: true).id)
                next += 1
            }
        }
        register(32_000)
        var passes = 0
        for _ in 0..<12 {
            for id in live.prefix(4_000) { _ = h.request(.cancel(JobSelector(job: id.rawValue))) }
            live.removeFirst(4_000)
            h.advance(2 * second)
            _ = h.request(.status(StatusRequest()))
            Self.forgetDue(&h)
            if h.scheduler.shrinking.isScheduled { passes += 1 }
            _ = Self.runShrinkPass(&h)
            register(4_000)
        }
        #expect(passes >= 3, "passes ran: the forgotten jobs armed them")
        #expect(h.scheduler.shrinking.tablesShrunk == 0)
        #expect(h.scheduler.table.activeJobs(inScope: "steady").count == 32_000)
    }

    @Test("5,000 ended jobs whose retention passes together are forgotten a share a turn, the rest on the timer soon after")
    func forgettingIsShared() {
        var h = Self.countdowns(5_000, scopes: 1)
        Self.cancelPastRetention(&h, scopes: 1)
        #expect(h.scheduler.table.count == 5_000 - Scheduler.forgetsPerTurn)
        #expect(h.scheduler.timers.contains(.retention))
        var turns = 0
        while h.scheduler.table.count > 0, turns < 100 {
            let before = h.scheduler.table.count
            _ = h.fireAtArmedDeadline()
            #expect(before - h.scheduler.table.count <= Scheduler.forgetsPerTurn)
            turns += 1
        }
        #expect(h.scheduler.table.count == 0)
        let share = Scheduler.forgetsPerTurn
        #expect(turns == (5_000 - share + share - 1) / share)
        #expect(!h.scheduler.timers.contains(.retention), "nothing left to forget arms nothing")
    }

    @Test("a turn with a deadline near forgets only what fits before it, an eighth of a share at least")
    func forgettingMakesRoom() {
        var h = Self.countdowns(5_000, scopes: 2)
        _ = h.request(.cancel(JobSelector(scope: "s0")))
        _ = h.request(.cancel(JobSelector(scope: "s1")))
        h.advance(2 * second)
        _ = h.fireDue()
        let before = h.scheduler.table.count
        #expect(before < 5_000, "the retention passed: the first share went")
        #expect(h.scheduler.timers.priority(of: .retention) == h.now.instant.advanced(by: ShrinkPass.sliceGapNanos))
        // A countdown due 300 µs from now, before the next share's timer.
        let until = WallTime(nanosecondsSinceEpoch: h.now.wall.nanosecondsSinceEpoch + 300_000)
        _ = h.request(.registerCountdown(CountdownSpec(key: nil, until: until, ephemeral: true)))
        #expect(before + 1 - h.scheduler.table.count == Scheduler.forgetsPerTurn, "the turn forgot its share before the countdown was made")
        let registered = h.scheduler.table.count
        _ = h.request(.status(StatusRequest()))
        let afterFirst = h.scheduler.table.count
        let fits = Int(300_000 / Scheduler.forgetNanos)
        #expect(registered - afterFirst == fits, "300 µs before the deadline")
        h.advance(250_000)
        _ = h.request(.status(StatusRequest()))
        #expect(afterFirst - h.scheduler.table.count == Scheduler.forgetsPerTurn / 8, "50 µs before it")
        h.advance(1_000_000)
        _ = h.fireDue()
        let later = h.scheduler.table.count
        _ = h.request(.status(StatusRequest()))
        #expect(later - h.scheduler.table.count == Scheduler.forgetsPerTurn, "with no deadline near, a whole share")
    }

    @Test("a slice's wait for room lasts 25 ms at most, and starts again after the pass was put off for forgetting or a slice ran")
    func roomWaitStartsAgain() {
        var pass = ShrinkPass()
        let ms: Int64 = 1_000_000
        let t0 = Instant(nanoseconds: 1_000 * ms)
        func waits(at offset: Int64) -> Bool {
            pass.roomWait(before: t0.advanced(by: offset + ms), at: t0.advanced(by: offset)) != nil
        }
        let roomy = pass.roomWait(before: t0.advanced(by: 2 * ms), at: t0) != nil
        #expect(!roomy, "a deadline 2 ms away leaves room")
        let none = pass.roomWait(before: nil, at: t0) != nil
        #expect(!none)
        #expect(waits(at: 0))
        #expect(waits(at: 24 * ms))
        #expect(!waits(at: 25 * ms), "waited long enough")
        pass.waitsForForgetting()
        #expect(waits(at: 130 * ms), "a new wait after the forgetting")
        #expect(!waits(at: 155 * ms))
        pass.sliceEnded(ShrinkBudget())
        #expect(waits(at: 156 * ms), "a new wait after a slice")
    }

    /// After a burst of 20,000 cancelled countdowns, with other countdowns due every
    /// `spacing` from then on: the instant the pass began, and for each `.releaseMemory`, the
    /// instant it came and the next deadline then.
    private static func releases(deadlinesEvery spacing: Int64) -> (began: Instant, [(at: Instant, next: Instant?)]) {
        var h = Self.countdowns(20_000, scopes: 1)
        for index in 0..<Int(20 * second / spacing) {
            let due = Int64(index + 1) * spacing
            _ = h.request(.registerCountdown(CountdownSpec(key: "tick\(index)", durationMs: due / 1_000_000, ephemeral: true)))
        }
        Self.cancelPastRetention(&h, scopes: 1)
        let began = h.now.instant
        var releases: [(at: Instant, next: Instant?)] = []
        var turns = 0
        while h.scheduler.shrinking.isScheduled || h.scheduler.timers.contains(.retention), turns < 100_000 {
            if h.fireAtArmedDeadline().contains(where: { if case .releaseMemory = $0 { true } else { false } }) {
                releases.append((h.now.instant, h.scheduler.nextDeadline))
            }
            turns += 1
        }
        return (began, releases)
    }

    @Test("memory goes back when no deadline falls within 50 ms, not in the middle of a busy stretch")
    func releaseWaitsForQuiet() {
        let (_, releases) = Self.releases(deadlinesEvery: 200 * 1_000_000)
        #expect(releases.count == 1)
        for release in releases {
            let next = release.next.map { $0.nanoseconds(since: release.at) } ?? .max
            #expect(next >= ShrinkPass.quietNanos, "the next deadline was \(next) ns away")
        }
    }

    @Test("with deadlines every 10 ms, memory still goes back, at most 10 s after the pass")
    func releaseComesAnyway() {
        let (began, releases) = Self.releases(deadlinesEvery: 10 * 1_000_000)
        #expect(!releases.isEmpty)
        if let release = releases.first {
            let after = release.at.nanoseconds(since: began)
            #expect(after >= ShrinkPass.releaseWaitNanos && after <= ShrinkPass.releaseWaitNanos + 3 * second)
        }
    }

    @Test(
        "a restore of 65,536 jobs or more gives memory back once, at the first moment no deadline falls within 50 ms; a smaller one arms nothing for it",
        arguments: [1_000, ShrinkPass.removalsPerRelease])
    func releaseAfterRestore(jobs: Int) {
        var h = Harness()
        let wall = h.now.wall.nanosecondsSinceEpoch
        // The first deadline 20 ms out: the release waits until it has passed.
        let records = (0..<jobs).map { index in
            JobRecord(
                id: "cd_r\(index)", owner: 1000, kind: .countdown, state: .active, key: nil, scope: nil,
                createdAt: WallTime(nanosecondsSinceEpoch: wall - second + Int64(index)), endedAt: nil, reason: nil, replacedBy: nil,
                deadline: WallTime(nanosecondsSinceEpoch: wall + 20_000_000 + Int64(index) * second), tickNanos: second, lateByNanos: nil)
        }
        let half = jobs / 2
        _ = h.handle(.restoreChunk(RestoreChunk(Array(records[half...]), expecting: jobs, at: h.now, configuration: h.scheduler.configuration)))
        _ = h.handle(.restoreChunk(RestoreChunk(Array(records[..<half]), expecting: jobs, at: h.now, configuration: h.scheduler.configuration)))
        _ = h.handle(.restoreEnded)
        #expect(h.scheduler.table.count == jobs)
        #expect(h.scheduler.shrinking.isScheduled == (jobs >= ShrinkPass.removalsPerRelease))
        #expect(h.scheduler.timers.contains(.shrink) == (jobs >= ShrinkPass.removalsPerRelease))
        // Every firing in the first half second: the first deadline's and the shrink timer's.
        let start = h.now.instant
        var releasedAt: [Int64] = []
        for _ in 0..<20 {
            guard let armed = h.armed, armed < start.advanced(by: 500_000_000) else { break }
            if h.fireAtArmedDeadline().contains(where: { if case .releaseMemory = $0 { true } else { false } }) {
                releasedAt.append(h.now.instant.nanoseconds(since: start))
            }
        }
        if jobs >= ShrinkPass.removalsPerRelease {
            #expect(releasedAt.count == 1)
            #expect(releasedAt.allSatisfy { $0 > 20_000_000 && $0 <= 20_000_000 + ShrinkPass.quietNanos }, "released \(releasedAt) ns after the restore")
            #expect(!h.scheduler.shrinking.isScheduled)
        } else {
            #expect(releasedAt.isEmpty)
        }
        #expect(h.scheduler.table[JobID("cd_r0")]?.state == .expired && h.scheduler.table[JobID("cd_r1")]?.state == .active)
    }

    @Test("a user over the retained-jobs limit loses their oldest ended jobs a share a turn, down to the limit")
    func ownerLimitInShares() {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.retainedJobs = 100
        var h = Harness(configuration: configuration)
        for index in 0..<5_000 {
            _ = h.countdown(key: "k\(index)", seconds: 3_600, scope: "s0", ephemeral: true)
        }
        _ = h.request(.cancel(JobSelector(scope: "s0")))
        #expect(h.scheduler.table.count >= 5_000 - 2 * Scheduler.forgetsPerTurn, "the cancel's turn forgot one share at most")
        var turns = 0
        while h.scheduler.timers.contains(.retention), turns < 1_000 {
            let before = h.scheduler.table.count
            _ = h.fireAtArmedDeadline()
            #expect(before - h.scheduler.table.count <= Scheduler.forgetsPerTurn)
            turns += 1
        }
        #expect(h.scheduler.table.count == 100)
        #expect(h.scheduler.table.retainedJobs(ownedBy: 1000) == 100)
    }

    @Test("in the daemon's turns of many events, the forgetting share is per turn, not per event")
    func sharePerTurn() {
        var h = Self.countdowns(5_000, scopes: 1)
        _ = h.request(.cancel(JobSelector(scope: "s0")))
        h.advance(2 * second)
        let statuses = (0..<32).map { index in
            SchedulerEvent.request(ConnectionID(1), Request(id: .number(Int64(9_000 + index)), body: .status(StatusRequest())))
        }
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: statuses, at: h.now, into: &effects)
        #expect(h.scheduler.table.count == 5_000 - Scheduler.forgetsPerTurn)
        #expect(h.scheduler.timers.contains(.retention))
    }
}
