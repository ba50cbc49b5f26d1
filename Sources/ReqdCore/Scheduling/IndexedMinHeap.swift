/// A binary min-heap of keyed deadlines that can insert, move and remove any key in O(log n).
///
/// Each key appears at most once. A position index maps keys to their slot so `update` and
/// `remove` need no search. It is a `PlaceIndex` of eight-byte buckets that hold a position and
/// the key's hash: a `Dictionary` from key to position cost about 56 bytes an entry at a million
/// countdowns (heaptrack), this about 14. Each entry keeps its key's hash, so that moving it in
/// the heap does not hash the key again.
public struct IndexedMinHeap<Key: ShardKey & Sendable, Priority: Comparable & Sendable>: Sendable {
    /// One entry: a key and its priority.
    public struct Entry: Sendable {
        public let key: Key
        /// The key's hash in the position index; declared before `priority`, so that it takes
        /// what would be padding after a key such as `TimerKey` (17 bytes).
        let hash: UInt32
        public var priority: Priority
    }

    /// In chunks, so that it never copies every entry to grow or shrink (`ChunkedArray`).
    private var entries = ChunkedArray<Entry>()
    /// Sharded, so that the index never rebuilds every bucket in one go.
    private var positions = PlaceIndex()

    public init() {}

    /// The number of keys in the heap.
    public var count: Int { entries.count }
    /// Whether the heap is empty.
    public var isEmpty: Bool { entries.isEmpty }
    /// The entry with the smallest priority.
    public var min: Entry? { entries.first }

    /// Makes room in the index for `capacity` keys in all, so a bulk load does not grow it step
    /// by step; the entries grow a chunk at a time anyway.
    public mutating func reserveCapacity(_ capacity: Int) {
        positions.reserveCapacity(capacity)
    }

    /// Shrinks the entries, then the index shard by shard, from step `next` on, as far as
    /// `budget` goes; true once all have been looked at (`ShardedDictionary.shrink(from:_:)`).
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        if next == 0 {
            guard entries.shrink(&budget) else { return false }
            if entries.isEmpty { positions.release(ifEmpty: &budget) }
            next = 1
        }
        var shard = next - 1
        defer { next = shard + 1 }
        return positions.shrink(from: &shard, &budget)
    }

    /// The slots the entries and the index have room for; for tests.
    var capacity: (entries: Int, positions: Int) { (entries.capacity, positions.bytes / 8) }

    /// Where `key` is in the index and in the heap.
    @inline(__always)
    private func find(_ key: Key, hash: UInt32) -> PlaceIndex.Found? {
        positions.find(hash: hash) { entries[$0].key == key }
    }

    /// The priority of `key`, or nil when it is not in the heap.
    public func priority(of key: Key) -> Priority? {
        find(key, hash: PlaceIndex.hash(key)).map { entries[$0.place].priority }
    }

    /// Whether `key` is in the heap.
    public func contains(_ key: Key) -> Bool { find(key, hash: PlaceIndex.hash(key)) != nil }

    /// Inserts `key`, or moves it when it is already present.
    public mutating func set(_ key: Key, priority: Priority) {
        let hash = PlaceIndex.hash(key)
        if let index = find(key, hash: hash)?.place {
            let old = entries[index].priority
            entries[index].priority = priority
            if priority < old { siftUp(index) } else { siftDown(index) }
        } else {
            let end = entries.count
            entries.append(Entry(key: key, hash: hash, priority: priority))
            positions.insert(hash: hash, place: end)
            siftUp(end)
        }
    }

    /// Removes `key`; returns its priority when it was present.
    @discardableResult
    public mutating func remove(_ key: Key) -> Priority? {
        guard let found = find(key, hash: PlaceIndex.hash(key)) else { return nil }
        positions.remove(found)
        let index = found.place
        let removed = entries[index].priority
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            positions.move(hash: last.hash, from: entries.count, to: index)
            siftDown(index)
            siftUp(index)
        }
        return removed
    }

    /// Removes and returns the smallest entry when its priority is at or before `limit`.
    public mutating func popMin(notAfter limit: Priority) -> Entry? {
        guard let first = entries.first, !(limit < first.priority) else { return nil }
        remove(first.key)
        return first
    }

    /// The entries that `include` accepts, smallest first, at most `count` of them, looking at no
    /// more than `limit` entries: a walk of the heap's top, O(k log k), that leaves it as it was.
    ///
    /// Positions are visited in priority order through a small frontier heap of their own (a
    /// position's children enter it when the position is visited), so the smallest accepted
    /// entries come without sorting the whole heap.
    public func smallest(_ count: Int, examining limit: Int, where include: (Key) -> Bool) -> [Entry] {
        var found: [Entry] = []
        guard count > 0, !entries.isEmpty else { return found }
        var frontier = [0]
        var examined = 0
        func before(_ a: Int, _ b: Int) -> Bool { entries[frontier[a]].priority < entries[frontier[b]].priority }
        while found.count < count, examined < limit, let position = frontier.first {
            examined += 1
            if include(entries[position].key) { found.append(entries[position]) }
            // Pop the frontier's top, then push the visited position's children.
            frontier[0] = frontier[frontier.count - 1]
            frontier.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < frontier.count else { break }
                let smaller = left + 1 < frontier.count && before(left + 1, left) ? left + 1 : left
                guard before(smaller, parent) else { break }
                frontier.swapAt(parent, smaller)
                parent = smaller
            }
            for child in [2 * position + 1, 2 * position + 2] where child < entries.count {
                frontier.append(child)
                var slot = frontier.count - 1
                while slot > 0, before(slot, (slot - 1) / 2) {
                    frontier.swapAt(slot, (slot - 1) / 2)
                    slot = (slot - 1) / 2
                }
            }
        }
        return found
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard moving.priority < entries[parent].priority else { break }
            entries[child] = entries[parent]
            positions.move(hash: entries[child].hash, from: parent, to: child)
            child = parent
        }
        guard child != start else { return }
        entries[child] = moving
        positions.move(hash: moving.hash, from: start, to: child)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let moving = entries[parent]
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let smaller = right < count && entries[right].priority < entries[left].priority ? right : left
            guard entries[smaller].priority < moving.priority else { break }
            entries[parent] = entries[smaller]
            positions.move(hash: entries[parent].hash, from: smaller, to: parent)
            parent = smaller
        }
        guard parent != start else { return }
        entries[parent] = moving
        positions.move(hash: moving.hash, from: start, to: parent)
    }

    /// Checks the heap property and the index; for tests.
    public func isValid() -> Bool {
        for index in 0..<entries.count {
            let entry = entries[index]
            if entry.hash != PlaceIndex.hash(entry.key) || find(entry.key, hash: entry.hash)?.place != index { return false }
            if index > 0, entry.priority < entries[(index - 1) / 2].priority { return false }
        }
        return positions.count == entries.count
    }
}

