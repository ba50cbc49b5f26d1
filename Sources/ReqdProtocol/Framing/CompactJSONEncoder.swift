import Foundation

/// Encodes `Encodable` values as compact JSON bytes, written straight into one buffer.
///
/// Replies, events and the store's job details are encoded for every request, and Foundation's
/// `JSONEncoder`, which builds a tree of boxed values before writing any text, was the largest
/// single cost of a durable `submit`. This encoder writes as the value encodes itself. It covers
/// what reqd's types use: keyed, unkeyed and single-value containers, including several
/// `encode(to:)` calls flattening into one object. A value that asks for a nested container or a
/// super encoder is encoded by Foundation's `JSONEncoder` instead, so the output is always valid
/// JSON that `JSONDecoder` reads back to the same value. Key order is the order of encoding.
public struct CompactJSONEncoder: Sendable {
    // Its internals each have a file of their own beside this one, rather than nesting here:
    // JSONByteWriter (the buffer), JSONFrame (one value's progress), StreamingEncoder and its
    // three containers (StreamingKeyedContainer, StreamingUnkeyedContainer, StreamingSingleValueContainer).

    public init() {}

    /// The value as compact JSON.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let writer = JSONByteWriter()
        try writer.write(value)
        if writer.unsupported {
            return Array(try JSONEncoder().encode(value))
        }
        return writer.bytes
    }
}
