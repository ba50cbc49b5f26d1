extension Array: ResizableStorage {
    /// Elements are copied in order, with no hashing.
    var moveCost: Int { ShrinkBudget.copyCost(count: count, stride: MemoryLayout<Element>.stride) }

    mutating func reallocate() {
        var resized: [Element] = []
        resized.reserveCapacity(count)
        resized.append(contentsOf: self)
        self = resized
    }
}

extension Array {
    /// Shrinks a queue kept as an array whose first `head` elements have been taken: when what is
    /// left is under an eighth of the capacity, it moves to storage sized for it and `head`
    /// becomes 0.
    ///
    /// An eighth, not a quarter: such a queue drops its taken elements only once they are half of
    /// the array, so under a steady load the array holds up to twice what is left, and its
    /// capacity up to twice that again.
    mutating func shrink(droppingFirst head: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        budget.left -= 1
        let left = count - head
        let cost = ShrinkBudget.copyCost(count: left, stride: MemoryLayout<Element>.stride)
        guard capacity >= Self.smallestShrunkCapacity, left < capacity / 8, cost <= ShrinkBudget.slice else { return true }
        guard budget.take(cost) else { return false }
        let replaced = self
        self = Array(self[head...])
        head = 0
        budget.disposal.keep(replaced)
        return true
    }
}
