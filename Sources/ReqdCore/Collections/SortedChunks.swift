/// A sorted collection of distinct elements kept in chunks of at most `chunkLimit` elements: finding a place is two
/// binary searches, and adding or removing one moves at most a chunk's elements (plus the
/// chunks' own array when one splits or empties), so no change costs O(n).
///
/// Adding at the end, the common case for jobs in creation order, never moves anything.
/// A chunk that empties is dropped at once, so the memory follows the elements held.
struct SortedChunks<Element: Comparable & Sendable>: Sendable {
    /// Where an element sits; valid until the next change.
    struct Position: Sendable {
        var chunk: Int
        var index: Int
    }

    static var chunkLimit: Int { 256 }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    /// Elements already in order, as one chunk: for a short list read like a leaf.
    init(sorted elements: [Element]) {
        chunks = elements.isEmpty ? [] : [elements]
        count = elements.count
    }

    var isEmpty: Bool { count == 0 }

    /// The smallest element.
    var first: Element? { chunks.first?.first }

    /// The chunk that holds `element` or would: the first whose last element is not below it,
    /// or the last chunk.
    private func chunkIndex(for element: Element) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle][chunks[middle].count - 1] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index in `chunk` whose element is not below `element` (or above it, `after`).
    private static func index(in chunk: [Element], of element: Element, after: Bool) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if after ? !(element < chunk[middle]) : chunk[middle] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func insert(_ element: Element) {
        count += 1
        guard !chunks.isEmpty else {
            chunks.append([element])
            return
        }
        let last = chunks.count - 1
        if !(element < chunks[last][chunks[last].count - 1]) {
            if chunks[last].count < Self.chunkLimit {
                chunks[last].append(element)
            } else {
                chunks.append([element])
            }
            return
        }
        var target = chunkIndex(for: element)
        if chunks[target].count >= Self.chunkLimit {
            // Split first, each half in storage of its own size, so neither keeps the full
            // chunk's room.
            let lower = Array(chunks[target][..<(Self.chunkLimit / 2)])
            let upper = Array(chunks[target][(Self.chunkLimit / 2)...])
            chunks[target] = lower
            chunks.insert(upper, at: target + 1)
            if !(element < upper[0]) { target += 1 }
        }
        let at = Self.index(in: chunks[target], of: element, after: true)
        chunks[target].insert(element, at: at)
    }

    /// Removes one element equal to `element`; false when there is none.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let target = chunkIndex(for: element)
        let at = Self.index(in: chunks[target], of: element, after: false)
        guard at < chunks[target].count, chunks[target][at] == element else { return false }
        chunks[target].remove(at: at)
        if chunks[target].isEmpty { chunks.remove(at: target) }
        count -= 1
        return true
    }

    /// The position of the first element above `bound`, or of the first element when `bound` is nil.
    func position(after bound: Element?) -> Position {
        guard let bound, !chunks.isEmpty else { return Position(chunk: 0, index: 0) }
        let target = chunkIndex(for: bound)
        let at = Self.index(in: chunks[target], of: bound, after: true)
        return at < chunks[target].count ? Position(chunk: target, index: at) : Position(chunk: target + 1, index: 0)
    }

    /// The element at `position`; nil past the end.
    func element(at position: Position) -> Element? {
        position.chunk < chunks.count ? chunks[position.chunk][position.index] : nil
    }

    /// The position after `position`.
    func position(after position: Position) -> Position {
        position.index + 1 < chunks[position.chunk].count
            ? Position(chunk: position.chunk, index: position.index + 1) : Position(chunk: position.chunk + 1, index: 0)
    }

    /// Every element, in order; for tests.
    var elements: [Element] { chunks.flatMap { $0 } }
}
