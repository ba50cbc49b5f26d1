extension ShardedDictionary {
    /// The value for `key`; when there is none, `value` is stored and returned. One hash lookup
    /// in the key's shard, as `Dictionary.claim(_:default:)`.
    mutating func claim(_ key: Key, default value: Value) -> Value {
        Self.read(&self[key, default: value])
    }

    private static func read(_ slot: inout Value) -> Value { slot }
}
