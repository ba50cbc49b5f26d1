/// Values that each carry their own key, side by side in a dense slab, found by key through an
/// index of small buckets: one kind's jobs (`JobSlab`), the key index's records (`KeyIndex`).
///
/// A `Dictionary` keeps each value in a bucket of its own, at most three quarters full, beside
/// its key: a job's slot is as wide as its kind's machine (a request job's is 280 bytes), and with
/// the key beside it and the buckets half full on average, a slot cost about twice its width.
/// Here the values fill chunks of `chunkSize`, each full but the last, and a `PlaceIndex` finds
/// them, eight bytes a bucket. The key is not stored twice: it is the value's own (`slabKey`). A
/// removal moves the last value into the hole, so the slab stays dense, and a chunk that empties
/// goes at the next removal after it (one is kept, so that a table whose size goes back and forth
/// over a chunk's edge does not allocate each time).
///
/// Changing a value through the subscript never makes room for a missing key: a change of a job
/// not held (`polls[id]?.machine.log.append(…)`) finds nothing and leaves the table as it was.
struct Slab<Slot: SlabValue>: Sendable, Sequence {
    typealias Key = Slot.Key

    private static var chunkShift: Int { 10 }
    /// Slots a chunk holds: the first chunk grows to it as an array does, the later ones are made at it.
    static var chunkSize: Int { 1 << chunkShift }
    private static var chunkMask: Int { chunkSize - 1 }
    /// The number of index shards, each grown and shrunk on its own.
    static var shardCount: Int { PlaceIndex.shardCount }

    /// The slots, `chunkSize` to a chunk; every chunk is full but the last.
    private var chunks: [ContiguousArray<Slot?>] = []
    private var index = PlaceIndex()
    /// The number of values held.
    private(set) var count = 0
    /// Bytes of capacity let go of outside a shrink pass (chunks dropped by removals), for its account.
    private var freedBytes = 0

    /// Creates an empty table.
    init() {}

    /// Whether no value is held.
    var isEmpty: Bool { count == 0 }

    /// The slots the slab has room for, in all.
    var capacity: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// Where `id` is: its index bucket and its slot's place; nil when it is not held.
    @inline(__always)
    private func find(_ id: Key, hash: UInt32) -> PlaceIndex.Found? {
        index.find(hash: hash) { chunks[$0 >> Self.chunkShift][$0 & Self.chunkMask]?.slabKey == id }
    }

    /// Whether `id` is held.
    func contains(_ id: Key) -> Bool { find(id, hash: PlaceIndex.hash(id)) != nil }

    /// The slot of `id`; set to nil to remove it, or to a slot for a missing id to add it. A change
    /// through it happens in place, and one to a missing id that leaves it nil changes nothing.
    subscript(id: Key) -> Slot? {
        get {
            guard let found = find(id, hash: PlaceIndex.hash(id)) else { return nil }
            return chunks[found.place >> Self.chunkShift][found.place & Self.chunkMask]
        }
        _modify {
            let hash = PlaceIndex.hash(id)
            if let found = find(id, hash: hash) {
                let (chunk, index) = (found.place >> Self.chunkShift, found.place & Self.chunkMask)
                // Also when the access ends by a throw: a slot set to nil never stays in the slab.
                defer {
                    precondition(chunks[chunk][index].map { $0.slabKey == id } ?? true, "a slot keeps its id")
                    if chunks[chunk][index] == nil { removeHole(found) }
                }
                yield &chunks[chunk][index]
            } else {
                var slot: Slot?
                defer {
                    if let slot {
                        precondition(slot.slabKey == id, "a slot is stored under its own id")
                        insert(slot, hash: hash)
                    }
                }
                yield &slot
            }
        }
    }

    /// Runs `body` on the slot of `id` in place, with one lookup; nil when `id` is not held.
    mutating func modify<R>(_ id: Key, _ body: (inout Slot) -> R) -> R? {
        guard let found = find(id, hash: PlaceIndex.hash(id)) else { return nil }
        let (chunk, index) = (found.place >> Self.chunkShift, found.place & Self.chunkMask)
        return body(&chunks[chunk][index]!)
    }

    /// Removes `id`; returns its slot when it was held.
    @discardableResult
    mutating func removeValue(forKey id: Key) -> Slot? {
        guard let found = find(id, hash: PlaceIndex.hash(id)) else { return nil }
        let slot = chunks[found.place >> Self.chunkShift][found.place & Self.chunkMask].take()
        removeHole(found)
        return slot
    }

    /// Appends `slot` to the slab and indexes it; its id is not held yet.
    private mutating func insert(_ slot: Slot, hash: UInt32) {
        let place = count
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk = ContiguousArray<Slot?>()
            // The first chunk grows as an array does, so a small table stays small.
            if !chunks.isEmpty { chunk.reserveCapacity(Self.chunkSize) }
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(slot)
        count += 1
        index.insert(hash: hash, place: place)
    }

    /// Takes out the index entry of a slot whose place is now empty, and moves the last slot into
    /// that place.
    private mutating func removeHole(_ found: PlaceIndex.Found) {
        index.remove(found)
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
        index.move(hash: PlaceIndex.hash(moved.slabKey), from: count, to: found.place)
    }

    /// Makes room for `capacity` values in all, for a bulk load.
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > count else { return }
        chunks.reserveCapacity((capacity + Self.chunkSize - 1) / Self.chunkSize)
        if let first = chunks.first, chunks.count == 1, first.capacity < Self.chunkSize, capacity > first.count {
            chunks[0].reserveCapacity(Swift.min(Self.chunkSize, capacity))
        }
        index.reserveCapacity(capacity)
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
            if count == 0, !index.shards.isEmpty {
                budget.freed(capacity * MemoryLayout<Slot?>.stride)
                budget.disposal.keep(chunks)
                chunks = []
                index.release(ifEmpty: &budget)
            }
        }
        return index.shrink(from: &next, &budget)
    }

    /// Every key, in no particular order.
    var keys: [Key] { map(\.key) }

    /// Every slot, in no particular order.
    var values: LazyMapSequence<Slab, Slot> { lazy.map(\.value) }

    /// Walks the slots in the slab's order.
    struct Iterator: IteratorProtocol {
        fileprivate let chunks: [ContiguousArray<Slot?>]
        fileprivate var chunk = 0
        fileprivate var index = 0

        mutating func next() -> (key: Key, value: Slot)? {
            while chunk < chunks.count {
                if index < chunks[chunk].count {
                    // Places below `count` are never empty: a removal moves the last slot in.
                    guard let slot = chunks[chunk][index] else { preconditionFailure("an empty place inside the slab") }
                    index += 1
                    return (slot.slabKey, slot)
                }
                chunk += 1
                index = 0
            }
            return nil
        }
    }

    /// Every value with its key, in no particular order.
    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Exact, so that `map` and `keys` allocate their arrays once.
    var underestimatedCount: Int { count }
}

/// A value a `Slab` holds: it carries its own key.
protocol SlabValue: Sendable {
    associatedtype Key: Hashable & Sendable
    /// The key the slab finds the value by; it never changes while the value is held.
    var slabKey: Key { get }
}

/// One kind's jobs, by id.
typealias JobSlab<Machine: Sendable> = Slab<JobSlot<Machine>>

extension JobSlot: SlabValue {
    /// The job's id.
    var slabKey: JobID { header.id }
}
