import ReqdProtocol
import Testing
@testable import ReqdCore

/// A countdown slot for `id`, its deadline the value the tests follow.
private func slot(_ id: JobID, _ value: Int64) -> JobSlot<Countdown> {
    JobSlot(
        header: JobHeader(
            id: id, kind: .countdown, owner: 1000, key: nil, scope: nil, durable: false, createdAt: WallTime(nanosecondsSinceEpoch: 0),
            state: .active),
        machine: Countdown(deadline: Instant(nanoseconds: value), tick: 1, lateBy: nil))
}

private func id(_ index: Int) -> JobID { JobID("cd_\(String(index, radix: 32).leftPadded(to: 10))") }

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

@Suite("JobSlab: a kind's jobs in a dense slab behind a small index")
struct JobSlabTests {
    /// The slab as a dictionary of deadlines, walked through its sequence.
    private static func contents(_ slab: JobSlab<Countdown>) -> [JobID: Int64] {
        Dictionary(uniqueKeysWithValues: slab.map { ($0.key, $0.value.machine.deadline.nanoseconds) })
    }

    @Test("200,000 random adds, changes in place and removals agree with a Dictionary at every check, and the slab stays dense")
    func likeADictionary() {
        var slab = JobSlab<Countdown>()
        var plain: [JobID: Int64] = [:]
        // The held ids again, to pick from at random in O(1).
        var held: [JobID] = []
        let seed = UInt64.random(in: 0...UInt64.max)
        print("JobSlabTests.likeADictionary seed \(seed)")
        var random = RandomSource(seed: seed)
        var next = 0
        for step in 0..<200_000 {
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 5 || plain.isEmpty {
                // A new job.
                let new = id(next)
                next += 1
                slab[new] = slot(new, Int64(step))
                plain[new] = Int64(step)
                held.append(new)
            } else if roll < 7 {
                // A change in place of a held job, and of one not held, which changes nothing.
                let changed = held.randomElement(using: &random)!
                slab[changed]?.machine.deadline = Instant(nanoseconds: -Int64(step))
                plain[changed] = -Int64(step)
                slab[id(next + 1_000_000)]?.machine.deadline = Instant(nanoseconds: 1)
            } else if roll < 9 {
                let place = Int.random(in: held.indices, using: &random)
                let gone = held[place]
                held.swapAt(place, held.count - 1)
                held.removeLast()
                if roll == 7 {
                    #expect(slab.removeValue(forKey: gone)?.machine.deadline.nanoseconds == plain[gone])
                } else {
                    slab[gone] = nil
                }
                plain[gone] = nil
                #expect(slab.removeValue(forKey: gone) == nil)
            } else {
                let probe = Bool.random(using: &random) ? held.randomElement(using: &random)! : id(next + 5)
                #expect(slab[probe]?.machine.deadline.nanoseconds == plain[probe])
                #expect(slab.contains(probe) == (plain[probe] != nil))
            }
            if step % 20_000 == 0 || step == 199_999 {
                #expect(slab.count == plain.count)
                #expect(Self.contents(slab) == plain)
                // Dense: every chunk but the last full, and at most one empty chunk's room spare.
                #expect(slab.capacity <= (plain.count / JobSlab<Countdown>.chunkSize + 2) * JobSlab<Countdown>.chunkSize)
            }
        }
        for key in Array(plain.keys) {
            #expect(slab.removeValue(forKey: key) != nil)
        }
        #expect(slab.isEmpty && Array(slab).isEmpty)
    }

    @Test("a change to an id not held leaves an empty table without storage")
    func missingChangesNothing() {
        var slab = JobSlab<Countdown>()
        slab[id(1)]?.machine.deadline = Instant(nanoseconds: 5)
        #expect(slab.isEmpty && slab.capacity == 0 && !slab.contains(id(1)))
    }

    @Test("a bulk load after reserving keeps every job; a shrink pass gives back the index of a table emptied, and the table works after")
    func reserveAndShrink() {
        var slab = JobSlab<Countdown>()
        slab.reserveCapacity(50_000)
        for index in 0..<50_000 { slab[id(index)] = slot(id(index), Int64(index)) }
        #expect(slab.count == 50_000 && slab[id(31_337)]?.machine.deadline.nanoseconds == 31_337)
        for index in 0..<49_990 { slab[id(index)] = nil }
        var budget = ShrinkBudget()
        budget.left = .max
        var next = 0
        #expect(slab.shrink(from: &next, &budget))
        #expect(budget.shrunk > 0, "the sparse index shards were rebuilt smaller")
        #expect(Self.contents(slab) == Dictionary(uniqueKeysWithValues: (49_990..<50_000).map { (id($0), Int64($0)) }))
        for index in 49_990..<50_000 { slab[id(index)] = nil }
        var emptied = ShrinkBudget()
        next = 0
        #expect(slab.shrink(from: &next, &emptied))
        #expect(slab.capacity == 0)
        slab[id(7)] = slot(id(7), 7)
        #expect(slab[id(7)]?.machine.deadline.nanoseconds == 7 && slab.count == 1)
    }

    /// Where `bucket` is in `shard`, found the way a lookup probes: from its home on, to the first
    /// empty bucket.
    private static func probe(_ shard: PlaceIndex.Shard, for bucket: UInt64) -> Int? {
        var index = Int(truncatingIfNeeded: bucket >> 32) & shard.mask
        while shard.buckets[index] != 0 {
            if shard.buckets[index] == bucket { return index }
            index = (index + 1) & shard.mask
        }
        return nil
    }

    @Test("a removal from a run that wraps past the index's end moves back what the hole cut off, so each entry is still found")
    func wrapAround() {
        var shard = PlaceIndex.Shard(buckets: Array(repeating: 0, count: 8), count: 0)
        // Homes 6, 6, 7, 7 and 6: the run fills buckets 6, 7, 0, 1 and 2.
        let entries: [UInt64] = [(6, 1), (6, 2), (7, 3), (7, 4), (6, 5)].map { UInt64($0.0) << 32 | UInt64($0.1) }
        for entry in entries { shard.insert(entry) }
        #expect(shard.buckets == [entries[2], entries[3], entries[4], 0, 0, 0, entries[0], entries[1]])
        shard.remove(at: 6)
        #expect(shard.count == 4)
        for entry in entries.dropFirst() { #expect(Self.probe(shard, for: entry) != nil, "entry \(entry & 0xFF)") }
        #expect(Self.probe(shard, for: entries[0]) == nil)
        // Each later entry of the run moved back one bucket, across the wrap.
        #expect(shard.buckets == [entries[3], entries[4], 0, 0, 0, 0, entries[1], entries[2]])
        // Removing across the wrap, from bucket 0 (home 7), keeps the rest reachable too.
        shard.remove(at: 0)
        #expect(shard.buckets == [entries[4], 0, 0, 0, 0, 0, entries[1], entries[2]])
        for entry in [entries[1], entries[2], entries[4]] { #expect(Self.probe(shard, for: entry) != nil, "entry \(entry & 0xFF)") }
    }

    @Test("10,000 seeded inserts and removals in a small shard, many homes alike, keep every entry reachable")
    func shardAgainstASet() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("JobSlabTests.shardAgainstASet seed \(seed)")
        var random = RandomSource(seed: seed)
        var shard = PlaceIndex.Shard(buckets: Array(repeating: 0, count: 64), count: 0)
        var held: [UInt64] = []
        var serial: UInt64 = 0
        for _ in 0..<10_000 {
            if held.count < 40, held.isEmpty || Bool.random(using: &random) {
                serial += 1
                // Homes crowded into a quarter of the buckets, so that runs are long and wrap.
                let entry = UInt64(Int.random(in: 56..<72, using: &random) & 63) << 32 | serial
                shard.insert(entry)
                held.append(entry)
            } else {
                let place = Int.random(in: held.indices, using: &random)
                let gone = held.remove(at: place)
                guard let index = Self.probe(shard, for: gone) else {
                    Issue.record("entry \(gone & 0xFFFF_FFFF) lost (seed \(seed))")
                    return
                }
                shard.remove(at: index)
            }
            #expect(shard.count == held.count)
        }
        for entry in held { #expect(Self.probe(shard, for: entry) != nil, "seed \(seed)") }
        #expect(shard.buckets.filter { $0 != 0 }.count == held.count)
    }

    @Test("a copy is a value: changing, adding to and removing from it leaves the original as it was")
    func copyOnWrite() {
        var original = JobSlab<Countdown>()
        for index in 0..<3_000 { original[id(index)] = slot(id(index), Int64(index)) }
        let before = Self.contents(original)
        var copy = original
        copy[id(5)]?.machine.deadline = Instant(nanoseconds: -5)
        // A removal from the middle moves the last slot into the hole: in the copy only.
        copy[id(1_500)] = nil
        copy[id(9_000)] = slot(id(9_000), 9_000)
        _ = copy.modify(id(7)) { $0.machine.deadline = Instant(nanoseconds: -7) }
        #expect(Self.contents(original) == before)
        #expect(copy[id(5)]?.machine.deadline.nanoseconds == -5 && copy[id(7)]?.machine.deadline.nanoseconds == -7)
        #expect(copy.count == 3_000 && !copy.contains(id(1_500)) && copy.contains(id(9_000)))
        #expect(copy[id(2_999)]?.machine.deadline.nanoseconds == 2_999, "the moved slot is found in its new place")
        var shrunk = original
        shrunk[id(0)] = nil
        #expect(Self.contents(original) == before && shrunk.count == 2_999)
    }
}
