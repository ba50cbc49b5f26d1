/// Where items stored elsewhere sit, found by a 32-bit hash of their key: eight bytes a bucket.
///
/// A `Dictionary` keeps the key beside each value, and its buckets are half full on average: an
/// index from a job id (16 bytes) to a place costs about 50 bytes an entry. Here a bucket holds
/// only the place and the key's hash; the key is the item's own, and the owner confirms a match
/// by looking at the item in that place (`find(hash:where:)`). `JobSlab` finds its slots this way,
/// and `IndexedMinHeap` its entries.
///
/// The index is `shardCount` shards picked by the hash's top eight bits, each an open-addressing
/// table with linear probing of its own, so that no growth moves more than about 1/256 of the
/// entries in one turn, as with `ShardedDictionary`. Removals shift the entries behind them back
/// instead of leaving tombstones.
struct PlaceIndex: Sendable {
    /// One bucket's place in the index, and the place it names.
    typealias Found = (shard: Int, bucket: Int, place: Int)

    /// One shard: buckets of `place + 1` in the low 32 bits (0 for an empty bucket) and the
    /// key's hash in the high ones; `buckets.count` is 0 or a power of two.
    struct Shard: Sendable {
        var buckets: [UInt64] = []
        var count = 0

        var mask: Int { buckets.count - 1 }

        /// Whether one more entry would fill it past three quarters.
        var isFull: Bool { (count + 1) * 4 > buckets.count * 3 }

        /// Puts `bucket` in the first empty bucket from its home on; its key is not there yet.
        mutating func insert(_ bucket: UInt64) {
            var index = Int(truncatingIfNeeded: bucket >> 32) & mask
            while buckets[index] != 0 { index = (index + 1) & mask }
            buckets[index] = bucket
            count += 1
        }

        /// Empties bucket `index`, and moves back each entry after it that the hole cut off from
        /// its home, so that every probe still finds what it looks for.
        mutating func remove(at index: Int) {
            var hole = index
            var next = (index + 1) & mask
            while buckets[next] != 0 {
                let home = Int(truncatingIfNeeded: buckets[next] >> 32) & mask
                // The entry may fill the hole if its home is not in the run between the hole and it.
                if (next - home) & mask >= (next - hole) & mask {
                    buckets[hole] = buckets[next]
                    hole = next
                }
                next = (next + 1) & mask
            }
            buckets[hole] = 0
            count -= 1
        }

        /// The same entries in `capacity` buckets (a power of two, room for them all).
        func rebuilt(capacity: Int) -> Shard {
            var shard = Shard(buckets: Array(repeating: 0, count: capacity), count: 0)
            for bucket in buckets where bucket != 0 { shard.insert(bucket) }
            return shard
        }
    }

    /// The number of shards, each grown and shrunk on its own.
    static var shardCount: Int { ShardedDictionary<JobID, Int>.shardCount }

    /// The shards, made at the first insertion.
    private(set) var shards: [Shard] = []

    /// The hash the index files `key` under.
    @inline(__always)
    static func hash(_ key: some Hashable) -> UInt32 { UInt32(truncatingIfNeeded: key.hashValue) }

    @inline(__always)
    private static func shard(of hash: UInt32) -> Int { Int(truncatingIfNeeded: hash >> UInt32(32 - shardCount.trailingZeroBitCount)) }

    @inline(__always)
    private static func bucket(_ hash: UInt32, _ place: Int) -> UInt64 { UInt64(hash) << 32 | UInt64(place + 1) }

    /// The bucket of the item with `hash` for which `isMatch(place)` holds; nil when none has.
    @inline(__always)
    func find(hash: UInt32, where isMatch: (Int) -> Bool) -> Found? {
        guard !shards.isEmpty else { return nil }
        let shard = Self.shard(of: hash)
        let buckets = shards[shard].buckets
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[index]
            if bucket == 0 { return nil }
            if UInt32(truncatingIfNeeded: bucket >> 32) == hash {
                let place = Int(truncatingIfNeeded: bucket & 0xFFFF_FFFF) - 1
                if isMatch(place) { return (shard, index, place) }
            }
            index = (index + 1) & mask
        }
    }

    /// Files an item with `hash` at `place`; the item is not filed yet.
    mutating func insert(hash: UInt32, place: Int) {
        if shards.isEmpty { shards = Array(repeating: Shard(), count: Self.shardCount) }
        let shard = Self.shard(of: hash)
        if shards[shard].isFull { shards[shard] = shards[shard].rebuilt(capacity: Swift.max(8, shards[shard].buckets.count * 2)) }
        shards[shard].insert(Self.bucket(hash, place))
    }

    /// Takes out a bucket that `find` gave.
    mutating func remove(_ found: Found) {
        shards[found.shard].remove(at: found.bucket)
    }

    /// Points the bucket of the item with `hash` at `old` to `new`: the item moved.
    mutating func move(hash: UInt32, from old: Int, to new: Int) {
        let shard = Self.shard(of: hash)
        let mask = shards[shard].mask
        var index = Int(truncatingIfNeeded: hash) & mask
        let oldBucket = Self.bucket(hash, old)
        while shards[shard].buckets[index] != oldBucket {
            precondition(shards[shard].buckets[index] != 0, "a held item has its bucket")
            index = (index + 1) & mask
        }
        shards[shard].buckets[index] = Self.bucket(hash, new)
    }

    /// Makes room for `capacity` items in all, for a bulk load: each shard gets its share and an
    /// eighth more, at most three quarters full.
    mutating func reserveCapacity(_ capacity: Int) {
        if shards.isEmpty { shards = Array(repeating: Shard(), count: Self.shardCount) }
        let each = capacity / Self.shardCount + capacity / (Self.shardCount * 8) + 1
        let buckets = Swift.max(8, Int(1) << (Int.bitWidth - ((each * 4 + 2) / 3 - 1).leadingZeroBitCount))
        for shard in shards.indices where shards[shard].buckets.count < buckets {
            shards[shard] = shards[shard].rebuilt(capacity: buckets)
        }
    }

    /// The number of items filed.
    var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// The bytes the buckets take.
    var bytes: Int { shards.reduce(0) { $0 + $1.buckets.count * 8 } }

    /// Lets go of every bucket once the index is empty and still holds some: counted as freed in
    /// `budget`, and kept in its disposal to be freed off the queue.
    mutating func release(ifEmpty budget: inout ShrinkBudget) {
        guard count == 0, !shards.isEmpty else { return }
        budget.freed(bytes)
        budget.disposal.keep(shards)
        shards = []
    }

    /// Shrinks the shards that are sparse from `next` on, as far as `budget` goes.
    ///
    /// - Returns: true once every shard has been looked at, with `next` at `shardCount`; `next`
    ///   says where to go on otherwise.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        while next < shards.count {
            guard !budget.isSpent else { return false }
            budget.left -= 1
            let shard = shards[next]
            // Sparse as `ResizableStorage` has it: under a quarter of what it may hold (three
            // quarters of its buckets), so that a steady load never moves a shard back and forth.
            if shard.buckets.count >= 64, shard.count * 16 < shard.buckets.count * 3 {
                guard budget.take(ShrinkBudget.copyCost(count: shard.buckets.count, stride: 8)) else { return false }
                var capacity = 8
                while capacity * 3 < shard.count * 4 + 4 { capacity *= 2 }
                shards[next] = shard.rebuilt(capacity: capacity)
                budget.freed((shard.buckets.count - capacity) * 8)
                budget.disposal.keep(shard.buckets)
            }
            next += 1
        }
        next = Self.shardCount
        return true
    }
}
