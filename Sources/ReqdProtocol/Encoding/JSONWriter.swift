/// Writes compact JSON text by hand, field by field, into a byte buffer that is reused from one
/// message to the next.
///
/// Replies and events are written with it (`Response.write(to:)`, `EventMessage.write(to:)`),
/// with no `Codable`: the generic encoder's metadata lookups and witness calls were a quarter of
/// the daemon's time per request (BENCHMARKS.md). The text is the one `CompactJSONEncoder` writes
/// for the same value, which the differential test in ReqdProtocolTests holds it to.
public struct JSONWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next key or array element needs a comma before it.
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Forgets the text, keeping the buffer.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// Ends a line.
    public mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    // MARK: Structure

    /// Opens an object.
    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the object opened last.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array.
    public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the array opened last.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Starts a member: its key, quoted, and the colon; the value follows.
    public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// Starts a member whose key is only known at run time.
    public mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        Self.appendEscaped(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Starts an array element.
    public mutating func element() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    // MARK: Values

    /// A string value, escaped.
    public mutating func string(_ value: String) {
        Self.appendEscaped(value, to: &bytes)
        needsComma = true
    }

    /// An integer value.
    public mutating func integer(_ value: some FixedWidthInteger) {
        Self.appendInteger(value, to: &bytes)
        needsComma = true
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        needsComma = true
    }

    /// `null`.
    public mutating func null() {
        bytes.append(contentsOf: Self.nullBytes)
        needsComma = true
    }

    /// A number: a whole one below 10^15 as an integer, as `CompactJSONEncoder` writes it; one
    /// that is not finite, which JSON cannot say, as null.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        Self.appendDouble(value, to: &bytes)
        needsComma = true
    }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values {
            element()
            string(value)
        }
        endArray()
    }

    // MARK: Members

    /// A member with a string value.
    public mutating func string(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// A member with an integer value.
    public mutating func integer(_ name: StaticString, _ value: some FixedWidthInteger) {
        key(name)
        integer(value)
    }

    /// A member with a boolean value.
    public mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// A member whose value is an array of strings.
    public mutating func strings(_ name: StaticString, _ values: [String]) {
        key(name)
        strings(values)
    }

    /// A member whose value writes itself, left out when nil.
    public mutating func value(_ name: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { return }
        key(name)
        value.write(to: &self)
    }

    /// An array of values that write themselves.
    public mutating func array(_ name: StaticString, _ values: [some JSONWritable]) {
        key(name)
        beginArray()
        for value in values {
            element()
            value.write(to: &self)
        }
        endArray()
    }

    // MARK: Optional members

    /// A string member, left out when nil, as `encodeIfPresent` leaves it out.
    public mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// An integer member, left out when nil.
    public mutating func integer(_ name: StaticString, _ value: (some FixedWidthInteger)?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    /// A boolean member, left out when nil.
    public mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// A number member, left out when nil.
    public mutating func double(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        double(value)
    }

    /// A member whose value is an array of strings, left out when nil.
    public mutating func strings(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        strings(values)
    }

    // MARK: Text

    /// Appends a string as a JSON string literal: quotes, backslashes and control characters escaped.
    static func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer's decimal digits, without making a `String`.
    static func appendInteger(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        if value == 0 { return bytes.append(UInt8(ascii: "0")) }
        guard value.bitWidth <= 64 else { return bytes.append(contentsOf: String(value).utf8) }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Room for the 20 digits of a 64-bit magnitude.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends a finite number: a whole one below 10^15 as an integer, any other by its shortest
    /// text that reads back the same.
    static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            appendInteger(Int64(value), to: &bytes)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hex = Array("0123456789abcdef".utf8)
}
