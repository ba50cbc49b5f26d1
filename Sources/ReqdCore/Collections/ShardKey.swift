/// A key that says which shard of a `ShardedDictionary` it belongs to.
public protocol ShardKey: Hashable {
    /// Bits whose top eight pick the shard; spread evenly over the keys.
    var shardBits: UInt { get }
}

extension ShardKey {
    /// The key's hash, by default: spread well, at the cost of hashing the key a second time.
    public var shardBits: UInt { UInt(bitPattern: hashValue) }
}

extension Int: ShardKey {}
extension String: ShardKey {}

extension JobID: ShardKey {
    /// The id's last two characters, which are random: no second hash of the whole id.
    public var shardBits: UInt {
        let bytes = rawValue.utf8
        guard bytes.count >= 2, let last = bytes.last else { return UInt(bitPattern: hashValue) }
        let before = bytes[bytes.index(bytes.endIndex, offsetBy: -2)]
        return (UInt(before) &* 31 &+ UInt(last)) &* 0x9E37_79B9_7F4A_7C15
    }
}
