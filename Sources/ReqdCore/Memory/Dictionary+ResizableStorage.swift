extension Dictionary: ResizableStorage {
    /// Every entry is hashed and inserted again.
    var moveCost: Int { ShrinkBudget.rehashCost(count: count, stride: Self.slotStride) }

    static var slotStride: Int { MemoryLayout<Key>.stride + MemoryLayout<Value>.stride }

    mutating func reallocate() {
        var resized = Dictionary(minimumCapacity: count)
        for (key, value) in self { resized[key] = value }
        self = resized
    }
}

extension Dictionary where Value: Shrinking {
    /// Shrinks the dictionary's storage, then each value's, when there are few enough values to
    /// look at in one slice; with more, only the dictionary's own.
    mutating func shrinkWithValues(_ budget: inout ShrinkBudget) -> Bool {
        guard shrink(&budget) else { return false }
        guard count <= ShrinkBudget.slice / 8 else { return true }
        var index = values.startIndex
        while index != values.endIndex {
            guard !budget.isSpent, values[index].shrink(&budget) else { return false }
            index = values.index(after: index)
        }
        return true
    }
}
