import ReqdProtocol
import Testing
@testable import ReqdCore

/// A daemon holds a million countdowns in slabs whose slots are as wide as a countdown's header and
/// machine, beside a timer entry and a key record each, so the memory per countdown in
/// BENCHMARKS.md rests on these sizes staying small.
@Suite("Job layout")
struct JobLayoutTests {
    @Test("a countdown's slot stays small inline: its header and its machine; what only some ended jobs have is boxed")
    func inlineSizes() {
        #expect(MemoryLayout<Countdown>.size <= 32)
        // 88: the end time is inline (BENCHMARKS.md, "Retained jobs").
        #expect(MemoryLayout<JobHeader>.stride <= 88)
        #expect(MemoryLayout<JobSlot<Countdown>>.stride <= 120)
    }

    @Test("a countdown's timer entry and its key's record stay small: the entry keeps its key's hash in what would be padding")
    func indexSizes() {
        #expect(MemoryLayout<IndexedMinHeap<TimerKey, Instant>.Entry>.stride <= 32)
        #expect(MemoryLayout<KeyIndex.Record?>.stride <= 56)
    }

    @Test("a request or poll job's optional instants, counts and statuses take 8 bytes each, not 16 (@Packed)")
    func packedSlots() {
        #expect(MemoryLayout<Packed<Instant>>.size == 8 && MemoryLayout<Packed<Double>>.size == 8)
        #expect(MemoryLayout<JobSlot<Delivery>>.stride <= 280)
        #expect(MemoryLayout<JobSlot<Poll>>.stride <= 304)
    }

    @Test("@Packed reads back nil and every value but the one that stands for nil, and compares as the optional does")
    func packedValues() {
        for value in [nil, 0, 1, -1, .max, .min + 1] as [Int64?] { #expect(Packed(wrappedValue: value).wrappedValue == value) }
        for value in [nil, 0, 0.5, -1, .infinity, -.infinity, .greatestFiniteMagnitude] as [Double?] {
            #expect(Packed(wrappedValue: value).wrappedValue == value)
        }
        #expect(Packed<Double>(wrappedValue: .nan).wrappedValue?.isNaN == true)
        #expect(Packed(wrappedValue: Instant(nanoseconds: 5)).wrappedValue == Instant(nanoseconds: 5))
        #expect(Packed<Instant>(wrappedValue: nil) == Packed<Instant>(wrappedValue: nil))
        #expect(Packed(wrappedValue: 7 as Int?) != Packed<Int>(wrappedValue: nil))
    }

    @Test("the boxed fields of an ended job read back what was set, each independently")
    func endingFields() {
        var job = Job(
            id: JobID("cd_0000000001"), owner: 1000, key: "k", scope: nil, durable: true,
            createdAt: WallTime(nanosecondsSinceEpoch: 1), state: .active, endedAt: nil, reason: nil, replacedBy: nil,
            work: .countdown(Countdown(deadline: Instant(nanoseconds: 5), tick: 1, lateBy: nil)))
        #expect(job.endedAt == nil && job.result == nil && job.error == nil && job.replacedBy == nil)
        job.endedAt = WallTime(nanosecondsSinceEpoch: 9)
        job.error = "boom"
        job.replacedBy = JobID("cd_0000000002")
        job.result = HTTPResult(status: 200, body: "ok", truncated: false)
        job.error = nil
        #expect(job.endedAt == WallTime(nanosecondsSinceEpoch: 9))
        #expect(job.replacedBy == JobID("cd_0000000002"))
        #expect(job.result?.status == 200)
        #expect(job.error == nil)

        var countdown = Countdown(deadline: Instant(nanoseconds: 5), tick: 1, lateBy: nil)
        countdown.lateBy = 7
        countdown.spawned = JobID("rq_0000000003")
        #expect(countdown.lateBy == 7 && countdown.spawned == JobID("rq_0000000003"))
        #expect(countdown == Countdown(deadline: Instant(nanoseconds: 5), tick: 1, lateBy: 7, spawned: JobID("rq_0000000003")))
    }
}
