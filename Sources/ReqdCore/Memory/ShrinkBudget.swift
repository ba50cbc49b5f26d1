/// The work one slice of a shrink pass may do, in units of roughly 100 ns of a release build on
/// the reference machine: a table looked at costs one, an entry moved a few (`ResizableStorage`).
///
/// A slice runs as one turn of the scheduler's queue, so its budget bounds how long every
/// deadline and request waits behind it.
struct ShrinkBudget: Sendable {
    /// The work of one slice: about a millisecond (BENCHMARKS.md, "Memory that comes back").
    static let slice = 8_192

    /// The most a removal spends shrinking the shard it left sparse, in a table that shrinks on
    /// removal (`ShardedDictionary`): about 0.1 ms, some 500 job ids.
    static let onRemoval = slice / 8

    /// Work left in this slice.
    var left = slice
    /// Tables shrunk in this slice.
    var shrunk = 0
    /// The bytes of capacity those shrinks let go of.
    private(set) var freedBytes = 0
    /// Whether this slice has moved anything yet.
    private(set) var hasMoved = false
    /// The storage the shrunk tables replaced, to be freed off the scheduler's queue.
    let disposal = Disposal()

    /// Whether the slice has done its share.
    var isSpent: Bool { left <= 0 }

    /// Takes a move of `cost` (at most one slice) when it fits in what is left, or when it is
    /// the slice's first: a part that starts over every slice (most keep no step) then always
    /// gets past its first sparse table, so a pass never stalls; a slice does at most about
    /// twice its budget.
    mutating func take(_ cost: Int) -> Bool {
        guard cost <= left || !hasMoved else { return false }
        left -= cost
        shrunk += 1
        hasMoved = true
        return true
    }

    /// Counts `bytes` of capacity let go of.
    mutating func freed(_ bytes: Int) { freedBytes += Swift.max(bytes, 0) }

    /// The cost of moving `count` elements of `stride` bytes each that are hashed again: two units
    /// each, and one more per 32 bytes copied. Measured: a countdown's 128-byte table entry moves
    /// in about 0.7 µs, a job id into a set in about 0.2 µs.
    static func rehashCost(count: Int, stride: Int) -> Int { count * (2 + stride / 32) }

    /// The cost of copying `count` elements of `stride` bytes in order, with no hashing: a 32nd
    /// of a rehash. Measured: 24-byte entries holding a job id copy in 5.4 ns each, so an array
    /// of about 130,000 of them moves in one slice.
    static func copyCost(count: Int, stride: Int) -> Int { rehashCost(count: count, stride: stride) / 32 }
}
