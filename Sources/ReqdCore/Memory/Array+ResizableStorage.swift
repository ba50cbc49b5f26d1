extension Array: ResizableStorage {
    /// Elements are copied in order, with no hashing.
    var moveCost: Int { ShrinkBudget.copyCost(count: count, stride: Self.slotStride) }

    static var slotStride: Int { MemoryLayout<Element>.stride }

    mutating func reallocate() {
        var resized: [Element] = []
        resized.reserveCapacity(count)
        resized.append(contentsOf: self)
        self = resized
    }
}
