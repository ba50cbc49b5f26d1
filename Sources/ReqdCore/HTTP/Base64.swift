/// Base64 (RFC 4648, the standard alphabet) for request bodies of any bytes: the core does not
/// use Foundation.
enum Base64 {
    /// The bytes `text` encodes, with or without `=` padding; nil when it holds anything else,
    /// such as whitespace, the URL-safe alphabet, or bits left over that are not zero.
    static func decode(_ text: String) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        if utf8.count % 4 == 0, utf8.last == UInt8(ascii: "=") {
            utf8.removeLast(utf8[utf8.count - 2] == UInt8(ascii: "=") ? 2 : 1)
        }
        guard utf8.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
