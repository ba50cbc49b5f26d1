/// A collection whose storage can be reallocated at the size of what it holds: `Dictionary`,
/// `Set` and `Array`.
///
/// The rule lives here, once: storage shrinks when it holds less than a quarter of its capacity,
/// to about its count, and grows as ever when full. Between the two lies a factor of four, so a
/// steady load never moves a table back and forth between sizes. Storage under
/// `smallestShrunkCapacity` slots is left alone: it holds too little to matter. The storage a
/// shrink replaces goes to the slice's `Disposal`, so its freeing costs the scheduler nothing.
protocol ResizableStorage: Shrinking {
    var count: Int { get }
    var capacity: Int { get }
    /// The bytes of one slot: what a slot of capacity holds.
    static var slotStride: Int { get }
    /// What moving the elements costs against a `ShrinkBudget`.
    var moveCost: Int { get }
    /// Copies the elements into new storage sized for them.
    mutating func reallocate()
}

extension ResizableStorage {
    /// The smallest capacity worth shrinking.
    static var smallestShrunkCapacity: Int { 256 }

    /// Whether the storage holds less than a quarter of its capacity, and is big enough to matter.
    var isSparse: Bool { capacity >= Self.smallestShrunkCapacity && count < capacity / 4 }

    /// Reallocates when sparse, at most one slice's work at a time.
    ///
    /// Storage whose move would cost more than a whole slice is left as it is until it holds
    /// less: one shrink is never a long turn.
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool {
        budget.left -= 1
        guard isSparse, moveCost <= ShrinkBudget.slice else { return true }
        guard budget.take(moveCost) else { return false }
        let replaced = self
        reallocate()
        budget.freed((replaced.capacity - capacity) * Self.slotStride)
        budget.disposal.keep(replaced)
        return true
    }
}
