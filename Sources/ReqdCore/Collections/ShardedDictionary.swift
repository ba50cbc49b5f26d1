/// A dictionary kept as 256 smaller ones, chosen by the key's hash, so that it never grows or
/// shrinks all at once.
///
/// A Swift `Dictionary` doubles and rehashes every entry when it fills: at 200,000 jobs that took
/// 50–250 ms on the scheduler's queue, and every deadline waited behind it. Here each shard grows
/// and shrinks on its own and holds about 1/256 of the entries, so one growth or shrink moves
/// 1/256 of them: at a million jobs, a shard's shrink is a slice's work or less
/// (`ShrinkBudget`). The shard
/// comes from the top bits of the key's `shardBits`: a job id's random characters, so a lookup
/// hashes the key once, or else its hash, whose low bits a shard's own buckets use.
public struct ShardedDictionary<Key: ShardKey, Value>: Sequence {
    private static var shardBits: Int { 8 }
    private var shards: [[Key: Value]] = Array(repeating: [:], count: 1 << 8)

    /// Creates an empty dictionary.
    public init() {}

    @inline(__always)
    private static func shard(of key: Key) -> Int {
        Int(truncatingIfNeeded: key.shardBits >> UInt(UInt.bitWidth - shardBits))
    }

    /// The value for `key`; set to nil to remove it. Changes happen in place.
    public subscript(key: Key) -> Value? {
        get { shards[Self.shard(of: key)][key] }
        _modify { yield &shards[Self.shard(of: key)][key] }
    }

    /// The value for `key`, or `defaultValue` stored in its place first when there is none.
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { shards[Self.shard(of: key)][key, default: defaultValue()] }
        _modify { yield &shards[Self.shard(of: key)][key, default: defaultValue()] }
    }

    /// The number of entries.
    public var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// The entries in the fullest shard: what one growth moves at most is about twice that.
    var largestShard: Int { shards.map(\.count).max() ?? 0 }

    /// Whether there are no entries.
    public var isEmpty: Bool { shards.allSatisfy(\.isEmpty) }

    /// Removes `key`; returns its value when it was there.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        shards[Self.shard(of: key)].removeValue(forKey: key)
    }

    /// Makes room for `capacity` entries in all, spread over the shards.
    public mutating func reserveCapacity(_ capacity: Int) {
        let each = (capacity >> Self.shardBits) + (capacity >> (Self.shardBits + 3)) + 1
        for index in shards.indices { shards[index].reserveCapacity(each) }
    }

    /// The number of shards, each shrunk on its own.
    static var shardCount: Int { 1 << shardBits }

    /// Shrinks the sparse shards from `next` on, as far as `budget` goes: one shard moves at most
    /// about 1/256 of the entries, so a shrink of a large table spreads over many slices.
    ///
    /// - Returns: true once every shard has been looked at; `next` says where to go on otherwise.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        while next < shards.count {
            guard !budget.isSpent, shards[next].shrink(&budget) else { return false }
            next += 1
        }
        return true
    }

    /// The slots the shards have room for, in all.
    var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

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
