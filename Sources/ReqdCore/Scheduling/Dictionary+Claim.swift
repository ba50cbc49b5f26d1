extension Dictionary {
    /// The value for `key`, storing `value` first when the key is absent, in one hash lookup.
    ///
    /// A lookup and then an insert hash the key twice; at a million jobs restored or scheduled in
    /// a row, the second hash was a cost of its own. The `default:` subscript's modify accessor
    /// stores the default in place, and reading through `inout` keeps it.
    mutating func claim(_ key: Key, default value: Value) -> Value {
        Self.read(&self[key, default: value])
    }

    private static func read(_ slot: inout Value) -> Value { slot }
}
