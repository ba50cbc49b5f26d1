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

    @Test("claim stores the default only when the key is new, and returns what is stored")
    func claim() {
        var sharded = ShardedDictionary<String, Int>()
        #expect(sharded.claim("a", default: 1) == 1)
        #expect(sharded.claim("a", default: 2) == 1)
        #expect(sharded.count == 1)
    }

    @Test("entries spread over the shards, so that no shard holds much more than its share")
    func spread() {
        var sharded = ShardedDictionary<Int, Int>()
        sharded.reserveCapacity(64_000)
        for index in 0..<64_000 { sharded[index] = index }
        #expect(sharded.largestShard < 500)
    }
}
