/// TOML's four kinds of string: basic and literal, on one line or several.
extension TOMLParser {
    /// A one-line string between `quote`s: a basic string (`"`), with escapes, or a literal one (`'`).
    mutating func string(quote: UInt8) throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw fail("the string is never closed on its line")
            }
            if byte == quote {
                index += 1
                return String(scalars)
            }
            if byte == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                scalars.append(try escape())
            } else {
                try appendCharacter(to: &scalars)
            }
        }
    }

    /// A string between three `quote`s on each side, over several lines; escapes and line-ending
    /// backslashes only in a basic one (`\"\"\"`).
    mutating func multiLineString(quote: UInt8) throws(Failure) -> String {
        let start = line
        index += 3
        _ = skipNewline()
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek() else {
                throw Failure(line: start, problem: "the multi-line string begun on this line is never closed")
            }
            if byte == quote {
                if let quotes = try closingQuotes(quote) {
                    scalars.append(contentsOf: repeatElement(Unicode.Scalar(quote), count: quotes))
                    return String(scalars)
                }
                scalars.append(Unicode.Scalar(quote))
                index += 1
            } else if byte == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                if lineEndingBackslash() { continue }
                scalars.append(try escape())
            } else {
                try appendCharacter(to: &scalars, newlines: true)
            }
        }
    }

    /// At a quote in a multi-line string: when three or more follow, consumes them and returns how
    /// many belong to the content (up to two); nil when fewer than three.
    private mutating func closingQuotes(_ quote: UInt8) throws(Failure) -> Int? {
        var count = 0
        while peek(count) == quote { count += 1 }
        guard count >= 3 else { return nil }
        guard count <= 5 else { throw fail("too many quotes at the end of a multi-line string") }
        index += count
        return count - 3
    }


    /// A backslash that ends its line (spaces may follow it) trims the newline and the blank space after it.
    private mutating func lineEndingBackslash() -> Bool {
        var probe = index + 1
        while probe < bytes.count, bytes[probe] == UInt8(ascii: " ") || bytes[probe] == UInt8(ascii: "\t") { probe += 1 }
        guard probe < bytes.count,
            bytes[probe] == UInt8(ascii: "\n")
                || (bytes[probe] == UInt8(ascii: "\r") && probe + 1 < bytes.count && bytes[probe + 1] == UInt8(ascii: "\n"))
        else { return false }
        index = probe
        while true {
            skipSpaces()
            guard skipNewline() else { return true }
        }
    }

    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        index += 1
        guard let byte = peek() else { throw fail("the string ends inside an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            guard index + count <= bytes.count,
                bytes[index..<index + count].allSatisfy({ Self.digitValue($0, radix: 16) != nil }),
                let code = UInt32(String(decoding: bytes[index..<index + count], as: UTF8.self), radix: 16),
                let scalar = Unicode.Scalar(code)
            else {
                throw fail("\\\(Character(Unicode.Scalar(byte))) must be followed by \(count) hex digits of a Unicode scalar value")
            }
            index += count
            return scalar
        default:
            throw fail("'\\\(Character(Unicode.Scalar(byte)))' is not an escape TOML knows")
        }
    }

    /// Appends the character at the cursor; a control character other than tab (and newline, in a
    /// multi-line string) is refused.
    private mutating func appendCharacter(to scalars: inout String.UnicodeScalarView, newlines: Bool = false) throws(Failure) {
        let byte = bytes[index]
        if byte < 0x80 {
            if newlines, byte == UInt8(ascii: "\n") {
                line += 1
            } else if newlines, byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                index += 1
                line += 1
                scalars.append("\n")
                index += 1
                return
            } else if Self.isControl(byte) {
                throw fail("a control character is not allowed in a string; write it as an escape such as \\u0000")
            }
            scalars.append(Unicode.Scalar(byte))
            index += 1
            return
        }
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
        let end = min(index + length, bytes.count)
        scalars.append(contentsOf: String(decoding: bytes[index..<end], as: UTF8.self).unicodeScalars)
        index = end
    }
}
