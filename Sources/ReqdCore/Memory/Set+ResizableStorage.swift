extension Set: ResizableStorage {
    /// Every member is hashed and inserted again.
    var moveCost: Int { ShrinkBudget.rehashCost(count: count, stride: Self.slotStride) }

    static var slotStride: Int { MemoryLayout<Element>.stride }

    mutating func reallocate() {
        var resized = Set(minimumCapacity: count)
        for member in self { resized.insert(member) }
        self = resized
    }
}
