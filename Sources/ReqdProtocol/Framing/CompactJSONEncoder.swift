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
    /// Creates an encoder.
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

/// The buffer and the rules for writing one value.
final class JSONByteWriter {
    // Unchecked exclusivity: one encode runs on one thread and never overlaps its own accesses;
    // the dynamic checks were a tenth of the encoder's time.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    /// Set when a value used a container this writer does not stream.
    @exclusivity(unchecked) var unsupported = false

    init() { bytes.reserveCapacity(256) }

    func write<T: Encodable>(_ value: T) throws {
        // Every type whose own `encode(to:)` asks for a single-value container and encodes itself
        // again must be written here, or it would recurse. Compared by metatype, not cast with
        // `as?`: fourteen failed dynamic casts for every nested value were a tenth of the time.
        if T.self == String.self { return write(string: unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return write(integer: unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self {
            return bytes.append(contentsOf: unsafeBitCast(value, to: Bool.self) ? Self.trueBytes : Self.falseBytes)
        }
        if T.self == Int64.self { return write(integer: unsafeBitCast(value, to: Int64.self)) }
        if T.self == UInt8.self { return write(integer: unsafeBitCast(value, to: UInt8.self)) }
        if T.self == UInt32.self { return write(integer: unsafeBitCast(value, to: UInt32.self)) }
        if T.self == Double.self { return try write(double: unsafeBitCast(value, to: Double.self)) }
        if T.self == Int32.self { return write(integer: unsafeBitCast(value, to: Int32.self)) }
        if T.self == UInt64.self { return write(integer: unsafeBitCast(value, to: UInt64.self)) }
        if T.self == UInt.self { return write(integer: unsafeBitCast(value, to: UInt.self)) }
        if T.self == Int16.self { return write(integer: unsafeBitCast(value, to: Int16.self)) }
        if T.self == UInt16.self { return write(integer: unsafeBitCast(value, to: UInt16.self)) }
        if T.self == Int8.self { return write(integer: unsafeBitCast(value, to: Int8.self)) }
        if T.self == Float.self {
            let number = unsafeBitCast(value, to: Float.self)
            guard number.isFinite else { return try write(double: Double(number)) }
            return bytes.append(contentsOf: number.description.utf8)
        }
        let frame = JSONFrame()
        try value.encode(to: StreamingEncoder(writer: self, frame: frame))
        switch frame.kind {
        case .none: bytes.append(contentsOf: Self.emptyObject)
        case .keyed: bytes.append(UInt8(ascii: "}"))
        case .unkeyed: bytes.append(UInt8(ascii: "]"))
        case .single: break
        }
    }

    func writeNull() { bytes.append(contentsOf: Self.nullBytes) }

    func write<Number: BinaryInteger>(integer: Number) {
        // Up to 15 digits, the text is a small string: no allocation.
        bytes.append(contentsOf: String(integer).utf8)
    }

    func write(double: Double) throws {
        guard double.isFinite else {
            throw EncodingError.invalidValue(double, EncodingError.Context(codingPath: [], debugDescription: "\(double) is not valid JSON"))
        }
        if double == double.rounded(.towardZero), abs(double) < 1e15 {
            write(integer: Int64(double))
        } else {
            bytes.append(contentsOf: double.description.utf8)
        }
    }

    func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let emptyObject = Array("{}".utf8)
    private static let hex = Array("0123456789abcdef".utf8)
}

/// What one value's `encode(to:)` has opened so far, and how many members it has written.
final class JSONFrame {
    enum Kind { case none, keyed, unkeyed, single }
    @exclusivity(unchecked) var kind = Kind.none
    @exclusivity(unchecked) var count = 0

    /// Writes the separator before the next member.
    func separate(_ writer: JSONByteWriter) {
        if count > 0 { writer.bytes.append(UInt8(ascii: ",")) }
        count += 1
    }
}

/// The `Encoder` handed to one value: its containers write to the shared buffer.
struct StreamingEncoder: Encoder {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch frame.kind {
        case .none:
            frame.kind = .keyed
            writer.bytes.append(UInt8(ascii: "{"))
        case .keyed: break
        case .unkeyed, .single: writer.unsupported = true
        }
        return KeyedEncodingContainer(StreamingKeyedContainer(writer: writer, frame: frame))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch frame.kind {
        case .none:
            frame.kind = .unkeyed
            writer.bytes.append(UInt8(ascii: "["))
        case .unkeyed: break
        case .keyed, .single: writer.unsupported = true
        }
        return StreamingUnkeyedContainer(writer: writer, frame: frame)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if frame.kind == .none { frame.kind = .single } else { writer.unsupported = true }
        return StreamingSingleValueContainer(writer: writer)
    }
}

struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] { [] }

    private func key(_ key: Key) {
        frame.separate(writer)
        writer.write(string: key.stringValue)
        writer.bytes.append(UInt8(ascii: ":"))
    }

    mutating func encodeNil(forKey key: Key) throws {
        self.key(key)
        writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        self.key(key)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.unsupported = true
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(writer: JSONByteWriter(), frame: JSONFrame()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.unsupported = true
        return StreamingUnkeyedContainer(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder() -> any Encoder {
        writer.unsupported = true
        return StreamingEncoder(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}

struct StreamingUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] { [] }
    var count: Int { frame.count }

    mutating func encodeNil() throws {
        frame.separate(writer)
        writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        frame.separate(writer)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.unsupported = true
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(writer: JSONByteWriter(), frame: JSONFrame()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.unsupported = true
        return StreamingUnkeyedContainer(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder() -> any Encoder {
        writer.unsupported = true
        return StreamingEncoder(writer: JSONByteWriter(), frame: JSONFrame())
    }
}

struct StreamingSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { writer.writeNull() }

    mutating func encode<T: Encodable>(_ value: T) throws { try writer.write(value) }
}
