import Testing
@testable import ReqdCore

@Suite("ShardedDictionary: a dictionary that grows a shard at a time")
struct ShardedDictionaryTests {
    @Test("100,000 entries: each is found, counted once, changed in place and removed like a Dictionary's")
    func likeADictionary() {
        var sharded = ShardedDictionary<String, Int>()
        var plain: [String: Int] = [:]
        for index in 0..<100_000 {
            sharded["k\(index)"] = index
            plain["k\(index)"] = index
        }
        #expect(sharded.count == 100_000)
        #expect(sharded["k4242"] == 4242)
        #expect(sharded["missing"] == nil)
        sharded["k7"]? += 1
        sharded["new", default: 0] += 5
        #expect(sharded["k7"] == 8)
        #expect(sharded["new"] == 5)
        #expect(sharded.removeValue(forKey: "k9") == 9)
        #expect(sharded.removeValue(forKey: "k9") == nil)
        sharded["k10"] = nil
        plain["k7"]? += 1
        plain["new", default: 0] += 5
        plain["k9"] = nil
        plain["k10"] = nil
        #expect(sharded.count == plain.count)
        #expect(Dictionary(uniqueKeysWithValues: sharded.map { ($0.key, $0.value) }) == plain)
        #expect(sharded.values.reduce(0, +) == plain.values.reduce(0, +))
    }

    @Test("entries spread over the shards, so that no shard holds much more than its share")
    func spread() {
        var sharded = ShardedDictionary<Int, Int>()
        sharded.reserveCapacity(64_000)
        for index in 0..<64_000 { sharded[index] = index }
        #expect(sharded.largestShard < 500)
    }
}

@Suite("ShardedSet: job-id sets nested in other maps shrink as they empty")
struct ShardedSetTests {
    @Test("a set stays one shard until it passes 1,024 members, splits, and merges back below 256, keeping every member")
    func splitAndMerge() {
        var set = ShardedSet<Int>()
        for member in 0..<1_024 { set.insert(member) }
        var plain = Set<Int>()
        for member in 0..<1_024 { plain.insert(member) }
        #expect(set.capacity == plain.capacity, "one shard, sized like a Set")
        set.insert(1_024)
        #expect(set.capacity >= 256 * 2, "256 shards")
        #expect(set.count == 1_025)
        #expect((0...1_024).allSatisfy(set.contains))
        for member in 0..<900 { #expect(set.remove(member) == member) }
        #expect(set.remove(0) == nil)
        #expect(set.count == 125)
        #expect(Set(set) == Set(900...1_024))
        #expect(set.capacity <= 384, "merged into one shard, sized for 255")
        #expect(!set.insert(1_000).inserted)
        #expect(set.insert(5).inserted)
    }

    @Test("200,000 members down to 10,000 give back most of their capacity on removal, with no shrink pass")
    func shrinksOnRemoval() {
        var set = ShardedSet<Int>()
        for member in 0..<200_000 { set.insert(member) }
        let peak = set.capacity
        for member in 10_000..<200_000 { set.remove(member) }
        #expect(set.count == 10_000)
        #expect(set.capacity * 8 < peak)
        #expect((0..<10_000).allSatisfy(set.contains))
    }
}
