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

    func write<Number: FixedWidthInteger>(integer: Number) { JSONWriter.appendInteger(integer, to: &bytes) }

    func write(double: Double) throws {
        guard double.isFinite else {
            throw EncodingError.invalidValue(double, EncodingError.Context(codingPath: [], debugDescription: "\(double) is not valid JSON"))
        }
        JSONWriter.appendDouble(double, to: &bytes)
    }

    func write(string: String) { JSONWriter.appendEscaped(string, to: &bytes) }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let emptyObject = Array("{}".utf8)
}
