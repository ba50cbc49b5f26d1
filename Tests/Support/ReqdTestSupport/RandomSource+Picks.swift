import ReqdCore

/// The draws the differential tests' generators make, on the daemon's own seeded generator: the
/// same seed gives the same values, so a failure names its seed and can be replayed.
extension RandomSource {
    /// A value in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    /// True `percent` times in a hundred.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    /// One of `items`.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
