extension Dictionary where Value == Int {
    /// Counts one less for `key`, and drops the key when its count reaches zero, so a table of
    /// counts by owner holds only owners with something counted.
    public mutating func countDown(_ key: Key) {
        let left = (self[key] ?? 1) - 1
        self[key] = left > 0 ? left : nil
    }
}
