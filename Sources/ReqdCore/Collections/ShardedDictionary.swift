/// A dictionary kept as 256 smaller ones once it holds more than 1,024 entries, chosen by the
/// key's hash, so that it never grows or shrinks all at once.
///
/// A Swift `Dictionary` doubles and rehashes every entry when it fills: at 200,000 jobs that took
/// 50–250 ms on the scheduler's queue, and every deadline waited behind it. Here each shard grows
/// and shrinks on its own and holds about 1/256 of the entries, so one growth or shrink moves
/// 1/256 of them: at a million jobs, a shard's shrink is a slice's work or less
/// (`ShrinkBudget`). The shard comes from the top bits of the key's `shardBits`: a job id's
/// random characters, so a lookup hashes the key once, or else its hash, whose low bits a
/// shard's own buckets use. A small one stays a single shard, so that one per scope or per
/// connection costs about what a `Dictionary` does.
public struct ShardedDictionary<Key: ShardKey, Value>: Sequence {
    private static var shardBits: Int { 8 }
    /// One shard while small, so that a small map costs what a `Dictionary` does; split into
    /// `shardCount` once it holds more than `splitCount` entries, and back into one below
    /// `mergeCount`.
    private var shards: [[Key: Value]] = [[:]]
    /// How far `shardBits` shifts to pick the shard, once split.
    private static var shift: Int { UInt.bitWidth - shardBits }
    /// The number of entries.
    public private(set) var count = 0
    /// Whether a removal that leaves its shard sparse shrinks that shard at once, when that is
    /// cheap (`ShrinkBudget.onRemoval`): for maps nested in others, which a shrink pass may not
    /// reach. Those it walks shrink in its slices instead.
    private let shrinksOnRemoval: Bool
    /// Bytes of capacity let go of outside a shrink pass (merges, shrinks on removal) since the
    /// last pass looked, for its account.
    private var freedBytes = 0

    /// Creates an empty dictionary; see `shrinksOnRemoval`.
    public init() { shrinksOnRemoval = false }

    init(shrinksOnRemoval: Bool) { self.shrinksOnRemoval = shrinksOnRemoval }

    /// Entries above which one shard becomes `shardCount`.
    static var splitCount: Int { 1_024 }
    /// Entries below which the shards become one again: on the removal that takes the count there
    /// when `shrinksOnRemoval`, else at the next shrink pass.
    static var mergeCount: Int { 256 }

    @inline(__always)
    private func shard(of key: Key) -> Int {
        shards.count == 1 ? 0 : Int(truncatingIfNeeded: key.shardBits >> Self.shift)
    }

    /// The value for `key`; set to nil to remove it. Changes happen in place.
    ///
    /// A change through it (`table[key]?.field = …`) makes room for `key` before it looks, as a
    /// `Dictionary` does, even when `key` is missing and nothing is stored: check `contains`
    /// first where the key may well be missing.
    public subscript(key: Key) -> Value? {
        get { shards[shard(of: key)][key] }
        _modify {
            let index = shard(of: key)
            let before = shards[index].count
            defer { changed(index, by: shards[index].count - before) }
            yield &shards[index][key]
        }
    }

    /// The value for `key`, or `defaultValue` stored in its place first when there is none.
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { shards[shard(of: key)][key, default: defaultValue()] }
        _modify {
            let index = shard(of: key)
            let before = shards[index].count
            defer { changed(index, by: shards[index].count - before) }
            yield &shards[index][key, default: defaultValue()]
        }
    }

    /// Whether `key` has a value, found without copying it.
    public func contains(_ key: Key) -> Bool { shards[shard(of: key)].index(forKey: key) != nil }

    /// Stores `value` for `key`; returns the value it replaced, nil when the key is new.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let index = shard(of: key)
        let old = shards[index].updateValue(value, forKey: key)
        if old == nil { changed(index, by: 1) }
        return old
    }

    /// Removes `key`; returns its value when it was there.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        let index = shard(of: key)
        let removed = shards[index].removeValue(forKey: key)
        if removed != nil { changed(index, by: -1) }
        return removed
    }

    /// Keeps `count` and the shape: splits when the one shard grew past `splitCount`; when
    /// `shrinksOnRemoval`, merges when few are left and shrinks a shard a removal left sparse.
    @inline(__always)
    private mutating func changed(_ index: Int, by delta: Int) {
        guard delta != 0 else { return }
        count += delta
        if delta > 0 {
            if shards.count == 1, count > Self.splitCount { split() }
        } else if shrinksOnRemoval {
            shrinkAfterRemoval(index)
        }
    }

    private mutating func shrinkAfterRemoval(_ index: Int) {
        if shards.count > 1, count < Self.mergeCount {
            freedBytes += capacity * [Key: Value].slotStride
            shards = [merged()]
            freedBytes -= capacity * [Key: Value].slotStride
        } else if shards[index].isSparse, shards[index].moveCost <= ShrinkBudget.onRemoval {
            freedBytes += shards[index].capacity * [Key: Value].slotStride
            shards[index].reallocate()
            freedBytes -= shards[index].capacity * [Key: Value].slotStride
        }
    }

    private mutating func split() {
        let whole = shards[0]
        shards = Array(repeating: [:], count: Self.shardCount)
        for (key, value) in whole { shards[shard(of: key)][key] = value }
    }

    /// The entries in one shard sized for them.
    private func merged() -> [Key: Value] {
        var whole = [Key: Value](minimumCapacity: count)
        for shard in shards { whole.merge(shard) { first, _ in first } }
        return whole
    }

    /// The entries in the fullest shard: what one growth moves at most is about twice that.
    var largestShard: Int { shards.map(\.count).max() ?? 0 }

    /// Whether there are no entries.
    public var isEmpty: Bool { count == 0 }

    /// Makes room for `capacity` entries in all, spread over the shards.
    public mutating func reserveCapacity(_ capacity: Int) {
        if shards.count == 1, capacity > Self.splitCount { split() }
        let each = shards.count == 1 ? capacity : (capacity >> Self.shardBits) + (capacity >> (Self.shardBits + 3)) + 1
        for index in shards.indices { shards[index].reserveCapacity(each) }
    }

    /// The number of shards of a split dictionary, each shrunk on its own.
    static var shardCount: Int { 1 << shardBits }

    /// Shrinks the sparse shards from `next` on, as far as `budget` goes: one shard moves at most
    /// about 1/256 of the entries, so a shrink of a large table spreads over many slices.
    ///
    /// - Returns: true once every shard has been looked at, with `next` at `shardCount`; `next`
    ///   says where to go on otherwise.
    /// A split table with fewer than `mergeCount` entries is merged into one shard instead, its
    /// shards freed off the queue.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        if next == 0 {
            budget.freed(freedBytes)
            freedBytes = 0
        }
        if shards.count > 1, count < Self.mergeCount {
            guard budget.take(ShrinkBudget.rehashCost(count: count, stride: [Key: Value].slotStride)) else { return false }
            let replaced = shards
            shards = [merged()]
            budget.freed((replaced.reduce(0) { $0 + $1.capacity } - capacity) * [Key: Value].slotStride)
            budget.disposal.keep(replaced)
        }
        while next < shards.count {
            guard !budget.isSpent, shards[next].shrink(&budget) else { return false }
            next += 1
        }
        next = Self.shardCount
        return true
    }

    /// The slots the shards have room for, in all.
    var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

    /// Every key, shard by shard.
    public var keys: FlattenSequence<LazyMapSequence<[[Key: Value]], Dictionary<Key, Value>.Keys>> {
        shards.lazy.map(\.keys).joined()
    }

    /// Every value, shard by shard.
    public var values: FlattenSequence<LazyMapSequence<[[Key: Value]], Dictionary<Key, Value>.Values>> {
        shards.lazy.map(\.values).joined()
    }

    /// Every entry, shard by shard, in no particular order.
    public func makeIterator() -> FlattenSequence<[[Key: Value]]>.Iterator {
        shards.joined().makeIterator()
    }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}

extension ShardedDictionary: Shrinking {
    /// Shrinks every sparse shard, as far as `budget` goes, starting over at the first shard each
    /// time: for a map nested in another, which keeps no step. Looking costs one unit for the
    /// whole map, not one per shard, so that a part that starts over every slice gets past a few
    /// dozen split maps (those that shrink on removal are seldom sparse).
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        budget.left -= 1
        if shards.count > 1, count < Self.mergeCount {
            var next = 0
            return shrink(from: &next, &budget)
        }
        budget.freed(freedBytes)
        freedBytes = 0
        for index in shards.indices where shards[index].isSparse {
            guard !budget.isSpent, shards[index].shrink(&budget) else { return false }
        }
        return true
    }
}
