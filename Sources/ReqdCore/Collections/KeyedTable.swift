/// A map from keys to values that changes in place: `Dictionary` or `ShardedDictionary`, so that
/// code over a connection's subscriptions serves both its small maps and the large ones.
protocol KeyedTable<Key, Value>: Sequence where Element == (key: Key, value: Value) {
    associatedtype Key: Hashable
    associatedtype Value
    subscript(key: Key) -> Value? { get set }
}

extension Dictionary: KeyedTable {}
extension ShardedDictionary: KeyedTable {}
