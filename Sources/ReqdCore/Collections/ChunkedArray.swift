/// An array kept in chunks of 4,096 elements, so that it grows and shrinks a chunk at a time.
///
/// A Swift `Array` doubles by copying every element, and keeps its capacity when elements leave:
/// the timer heap's entries after a million timers stayed sized for a million, and shrinking them
/// meant one copy of all that was left, more than a slice's work above about 130,000. Here only
/// the first chunk grows by doubling (up to one chunk); after that a full chunk is followed by a
/// new one, and a chunk that empties at either end goes at once. One emptied chunk is kept as a
/// spare, so a count that moves back and forth across a chunk's edge allocates nothing.
///
/// It serves as a queue as well: `popFirst` takes from the front, and the first chunk goes once
/// all its elements are taken. Every chunk but the last is full, counting the taken elements of
/// the first, so element `i` sits at a fixed chunk and offset.
struct ChunkedArray<Element> {
    private static var chunkBits: Int { 12 }
    /// Elements per chunk.
    static var chunkSize: Int { 1 << chunkBits }

    private var chunks: [[Element]] = []
    /// Elements taken from the front of the first chunk.
    private var head = 0
    /// An emptied chunk, with its capacity, for the next growth.
    private var spare: [Element]?
    /// Bytes of chunks let go of since the last shrink pass looked, for its account.
    private var freedBytes = 0
    /// The number of elements.
    private(set) var count = 0

    /// Creates an empty array.
    init() {}

    /// Whether there are no elements.
    var isEmpty: Bool { count == 0 }

    /// The first element.
    var first: Element? { count > 0 ? chunks[0][head] : nil }

    /// The element at `index`, counted from the first one left. Changes happen in place.
    subscript(index: Int) -> Element {
        get {
            let (chunk, offset) = place(of: index)
            return chunks[chunk][offset]
        }
        _modify {
            let (chunk, offset) = place(of: index)
            yield &chunks[chunk][offset]
        }
    }

    @inline(__always)
    private func place(of index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "ChunkedArray index out of range")
        let position = head &+ index
        return (position &>> Self.chunkBits, position & (Self.chunkSize - 1))
    }

    /// Adds `element` at the end.
    mutating func append(_ element: Element) {
        let last = chunks.count - 1
        if last < 0 || chunks[last].count == Self.chunkSize {
            chunks.append(newChunk())
        } else if last == 0, chunks[0].count == chunks[0].capacity, chunks[0].capacity * 2 > Self.chunkSize {
            // The first chunk doubles as it grows, but never past a chunk.
            chunks[0].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    /// Removes and returns the last element; the array must not be empty.
    @discardableResult
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty ChunkedArray")
        let last = chunks.count - 1
        let element = chunks[last].removeLast()
        count -= 1
        if count == 0 {
            emptied()
        } else if chunks[last].isEmpty {
            keepSpare(at: last)
        }
        return element
    }

    /// Removes and returns the first element, or nil when there is none.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = chunks[0][head]
        head += 1
        count -= 1
        if count == 0 {
            emptied()
        } else if head == Self.chunkSize {
            keepSpare(at: 0)
            head = 0
        }
        return element
    }

    /// The slots the chunks and the spare have room for; for tests.
    var capacity: Int { chunks.reduce(spare?.capacity ?? 0) { $0 + $1.capacity } }

    /// A chunk for the end: the spare, or new storage. The first chunk starts small and doubles,
    /// so a short array costs no more than an `Array`; the others are allocated whole.
    private mutating func newChunk() -> [Element] {
        if let chunk = spare {
            spare = nil
            return chunk
        }
        guard !chunks.isEmpty else { return [] }
        var chunk: [Element] = []
        chunk.reserveCapacity(Self.chunkSize)
        return chunk
    }

    /// Takes a whole chunk that emptied out and keeps it as the spare, emptied in place so that it
    /// keeps its storage; the spare before it, if any, is freed.
    private mutating func keepSpare(at index: Int) {
        chunks[index].removeAll(keepingCapacity: true)
        if let old = spare { freedBytes += old.capacity * MemoryLayout<Element>.stride }
        spare = chunks.remove(at: index)
    }

    /// The last element left: the one chunk left keeps its storage, as an emptied `Array` does.
    private mutating func emptied() {
        head = 0
        chunks[0].removeAll(keepingCapacity: true)
    }

    /// Whether an emptied chunk is kept for the next growth; for tests.
    var hasSpare: Bool { spare != nil }
}

extension ChunkedArray: Sendable where Element: Sendable {}

extension ChunkedArray: Shrinking {
    /// Lets the spare go, and moves a lone chunk that holds less than a quarter of its capacity
    /// (its taken elements dropped) to storage sized for what it holds: at most a chunk's copy.
    ///
    /// With two chunks or more, all are full but the last: nothing else to give back.
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        budget.left -= 1
        budget.freed(freedBytes)
        freedBytes = 0
        if let chunk = spare {
            spare = nil
            budget.freed(chunk.capacity * MemoryLayout<Element>.stride)
            budget.disposal.keep(chunk)
        }
        guard chunks.count == 1, chunks[0].capacity >= 256, count < chunks[0].capacity / 4 else { return true }
        guard budget.take(ShrinkBudget.copyCost(count: count, stride: MemoryLayout<Element>.stride)) else { return false }
        let replaced = chunks[0]
        // Copied into new storage: `Array(replaced[head...])` may keep the old storage.
        var fresh: [Element] = []
        fresh.reserveCapacity(count)
        fresh.append(contentsOf: replaced[head...])
        chunks[0] = fresh
        head = 0
        budget.freed((replaced.capacity - fresh.capacity) * MemoryLayout<Element>.stride)
        budget.disposal.keep(replaced)
        return true
    }
}
