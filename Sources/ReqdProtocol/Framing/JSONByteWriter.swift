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
