/// One kind's jobs: their slots side by side in a dense slab, found by id through an index of
/// small buckets.
///
/// A `Dictionary` keeps each value in a bucket of its own, at most three quarters full, and a
/// job's slot is as wide as its kind's machine (a request job's is 280 bytes): with the key
/// beside it and the buckets half full on average, a slot cost about twice its width. Here the
/// slots fill chunks of `chunkSize`, each full but the last, and the index holds eight bytes a
/// bucket: a slot's place, and 32 bits of its id's hash, so that a probe reads the slab only on a
/// likely match and the index grows without hashing an id again. The id is not stored twice: it
/// is the slot's header's. A removal moves the last slot into the hole, so the slab stays dense,
/// and a chunk that empties goes at the next removal after it (one is kept, so that a table
/// whose size goes back and forth over a chunk's edge does not allocate each time).
///
/// The index is `shardCount` shards picked by the top bits of the hash, each an open-addressing
/// table with linear probing of its own, so that no growth moves more than about 1/256 of the
/// entries in one turn, as with `ShardedDictionary`. Removals shift the entries behind them back
/// instead of leaving tombstones.
///
/// Changing a slot through the subscript never makes room for a missing id: a change of a job
/// not held (`polls[id]?.machine.log.append(…)`) finds nothing and leaves the table as it was.
struct JobSlab<Machine: Sendable>: Sendable, Sequence {
    typealias Slot = JobSlot<Machine>

    private static var chunkShift: Int { 10 }
    /// Slots a chunk holds: the first chunk grows to it as an array does, the later ones are made at it.
    static var chunkSize: Int { 1 << chunkShift }
    private static var chunkMask: Int { chunkSize - 1 }
    /// The number of index shards, each grown and shrunk on its own.
    static var shardCount: Int { ShardedDictionary<JobID, Int>.shardCount }

    /// One shard of the index: buckets of `place + 1` in the low 32 bits (0 for an empty bucket)
    /// and the id's hash's low 32 bits in the high ones; `buckets.count` is 0 or a power of two.
    struct Shard: Sendable {
        var buckets: [UInt64] = []
        var count = 0

        var mask: Int { buckets.count - 1 }

        /// Whether one more entry would fill it past three quarters.
        var isFull: Bool { (count + 1) * 4 > buckets.count * 3 }

        /// Puts `bucket` in the first empty bucket from its home on; the id is not there yet.
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

    /// The slots, `chunkSize` to a chunk; every chunk is full but the last.
    private var chunks: [ContiguousArray<Slot?>] = []
    /// The index, made at the first insertion.
    private var shards: [Shard] = []
    /// The number of jobs held.
    private(set) var count = 0
    /// Bytes of capacity let go of outside a shrink pass (chunks dropped by removals), for its account.
    private var freedBytes = 0

    /// Creates an empty table.
    init() {}

    /// Whether no job is held.
    var isEmpty: Bool { count == 0 }

    /// The slots the slab has room for, in all.
    var capacity: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// The hash of `id` that picks its shard (top bits) and its home bucket (low 32 bits).
    @inline(__always)
    private static func hash(_ id: JobID) -> UInt64 { UInt64(bitPattern: Int64(id.hashValue)) }

    @inline(__always)
    private static func shard(of hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - shardCount.trailingZeroBitCount)) }

    /// Where `id` is: its shard, its bucket there and its slot's place; nil when it is not held.
    @inline(__always)
    private func find(_ id: JobID, hash: UInt64) -> (shard: Int, bucket: Int, place: Int)? {
        guard !shards.isEmpty else { return nil }
        let shard = Self.shard(of: hash)
        let buckets = shards[shard].buckets
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        let fragment = hash & 0xFFFF_FFFF
        var index = Int(truncatingIfNeeded: fragment) & mask
        while true {
            let bucket = buckets[index]
            if bucket == 0 { return nil }
            if bucket >> 32 == fragment {
                let place = Int(truncatingIfNeeded: bucket & 0xFFFF_FFFF) - 1
                if chunks[place >> Self.chunkShift][place & Self.chunkMask]?.header.id == id { return (shard, index, place) }
            }
            index = (index + 1) & mask
        }
    }

    /// Whether `id` is held.
    func contains(_ id: JobID) -> Bool { find(id, hash: Self.hash(id)) != nil }

    /// The slot of `id`; set to nil to remove it, or to a slot for a missing id to add it. A change
    /// through it happens in place, and one to a missing id that leaves it nil changes nothing.
    subscript(id: JobID) -> Slot? {
        get {
            guard let found = find(id, hash: Self.hash(id)) else { return nil }
            return chunks[found.place >> Self.chunkShift][found.place & Self.chunkMask]
        }
        _modify {
            let hash = Self.hash(id)
            if let found = find(id, hash: hash) {
                let (chunk, index) = (found.place >> Self.chunkShift, found.place & Self.chunkMask)
                // Also when the access ends by a throw: a slot set to nil never stays in the slab.
                defer {
                    precondition(chunks[chunk][index].map { $0.header.id == id } ?? true, "a slot keeps its id")
                    if chunks[chunk][index] == nil { removeHole(found) }
                }
                yield &chunks[chunk][index]
            } else {
                var slot: Slot?
                defer {
                    if let slot {
                        precondition(slot.header.id == id, "a slot is stored under its own id")
                        insert(slot, hash: hash)
                    }
                }
                yield &slot
            }
        }
    }

    /// Runs `body` on the slot of `id` in place, with one lookup; nil when `id` is not held.
    mutating func modify<R>(_ id: JobID, _ body: (inout Slot) -> R) -> R? {
        guard let found = find(id, hash: Self.hash(id)) else { return nil }
        let (chunk, index) = (found.place >> Self.chunkShift, found.place & Self.chunkMask)
        return body(&chunks[chunk][index]!)
    }

    /// Removes `id`; returns its slot when it was held.
    @discardableResult
    mutating func removeValue(forKey id: JobID) -> Slot? {
        guard let found = find(id, hash: Self.hash(id)) else { return nil }
        let slot = chunks[found.place >> Self.chunkShift][found.place & Self.chunkMask].take()
        removeHole(found)
        return slot
    }

    /// Appends `slot` to the slab and indexes it; its id is not held yet.
    private mutating func insert(_ slot: Slot, hash: UInt64) {
        if shards.isEmpty { shards = Array(repeating: Shard(), count: Self.shardCount) }
        let place = count
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk = ContiguousArray<Slot?>()
            // The first chunk grows as an array does, so a small table stays small.
            if !chunks.isEmpty { chunk.reserveCapacity(Self.chunkSize) }
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(slot)
        count += 1
        let shard = Self.shard(of: hash)
        if shards[shard].isFull { shards[shard] = shards[shard].rebuilt(capacity: Swift.max(8, shards[shard].buckets.count * 2)) }
        shards[shard].insert((hash & 0xFFFF_FFFF) << 32 | UInt64(place + 1))
    }

    /// Takes out the index entry of a slot whose place is now empty, and moves the last slot into
    /// that place.
    private mutating func removeHole(_ found: (shard: Int, bucket: Int, place: Int)) {
        shards[found.shard].remove(at: found.bucket)
        count -= 1
        // Every chunk is full but the last: an empty last chunk goes before the one before it shrinks.
        if chunks.count > 1, chunks[chunks.count - 1].isEmpty {
            freedBytes += chunks.removeLast().capacity * MemoryLayout<Slot?>.stride
        }
        let last = chunks.count - 1
        let moved = chunks[last].removeLast()
        guard found.place != count, let moved else { return }
        chunks[found.place >> Self.chunkShift][found.place & Self.chunkMask] = moved
        // Its index entry follows it.
        let hash = Self.hash(moved.header.id)
        let shard = Self.shard(of: hash)
        let mask = shards[shard].mask
        var index = Int(truncatingIfNeeded: hash & 0xFFFF_FFFF) & mask
        let old = UInt64(count + 1)
        while shards[shard].buckets[index] & 0xFFFF_FFFF != old {
            precondition(shards[shard].buckets[index] != 0, "a held slot has its index entry")
            index = (index + 1) & mask
        }
        shards[shard].buckets[index] = (hash & 0xFFFF_FFFF) << 32 | UInt64(found.place + 1)
    }

    /// Makes room for `capacity` jobs in all, for a bulk load.
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > count else { return }
        if shards.isEmpty { shards = Array(repeating: Shard(), count: Self.shardCount) }
        chunks.reserveCapacity((capacity + Self.chunkSize - 1) / Self.chunkSize)
        if let first = chunks.first, chunks.count == 1, first.capacity < Self.chunkSize, capacity > first.count {
            chunks[0].reserveCapacity(Swift.min(Self.chunkSize, capacity))
        }
        // Each shard gets its share and an eighth more, at most three quarters full.
        let each = capacity / Self.shardCount + capacity / (Self.shardCount * 8) + 1
        let buckets = Swift.max(8, Int(1) << (Int.bitWidth - ((each * 4 + 2) / 3 - 1).leadingZeroBitCount))
        for shard in shards.indices where shards[shard].buckets.count < buckets {
            shards[shard] = shards[shard].rebuilt(capacity: buckets)
        }
    }

    /// Shrinks the index shards that are sparse from `next` on, as far as `budget` goes, and
    /// counts the chunks that removals dropped.
    ///
    /// - Returns: true once every shard has been looked at, with `next` at `shardCount`; `next`
    ///   says where to go on otherwise.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        if next == 0 {
            budget.freed(freedBytes)
            freedBytes = 0
            if count == 0, !shards.isEmpty {
                budget.freed(capacity * MemoryLayout<Slot?>.stride + shards.reduce(0) { $0 + $1.buckets.count * 8 })
                budget.disposal.keep((shards, chunks))
                shards = []
                chunks = []
            }
        }
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

    /// Every job's id, in no particular order.
    var keys: [JobID] { map(\.key) }

    /// Every slot, in no particular order.
    var values: LazyMapSequence<JobSlab, Slot> { lazy.map(\.value) }

    /// Walks the slots in the slab's order.
    struct Iterator: IteratorProtocol {
        fileprivate let chunks: [ContiguousArray<Slot?>]
        fileprivate var chunk = 0
        fileprivate var index = 0

        mutating func next() -> (key: JobID, value: Slot)? {
            while chunk < chunks.count {
                if index < chunks[chunk].count {
                    // Places below `count` are never empty: a removal moves the last slot in.
                    guard let slot = chunks[chunk][index] else { preconditionFailure("an empty place inside the slab") }
                    index += 1
                    return (slot.header.id, slot)
                }
                chunk += 1
                index = 0
            }
            return nil
        }
    }

    /// Every job as its id and slot, in no particular order.
    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Exact, so that `map` and `keys` allocate their arrays once.
    var underestimatedCount: Int { count }
}
