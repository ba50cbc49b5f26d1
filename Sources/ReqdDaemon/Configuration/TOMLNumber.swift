/// TOML 1.0's integers and floats, read strictly: no leading zeros, `_` only between digits, and
/// prefixes only in lower case.
enum TOMLNumber {
    /// The integer or float `token` spells, or nil when TOML would not read it as one.
    static func read(_ token: String) -> TOMLSubset.Value? {
        let bytes = Array(token.utf8)
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where token.hasPrefix(prefix) {
            guard let digits = digits(bytes[2...], radix: radix), let value = Int64(digits, radix: radix) else { return nil }
            return .integer(value)
        }
        var rest = bytes[...]
        var sign = ""
        if let first = rest.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            sign = first == UInt8(ascii: "-") ? "-" : ""
            rest = rest.dropFirst()
        }
        switch String(decoding: rest, as: UTF8.self) {
        case "inf": return .float(sign.isEmpty ? .infinity : -.infinity)
        case "nan": return .float(.nan)
        default: break
        }
        let exponentAt = rest.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let pointAt = rest.firstIndex(of: UInt8(ascii: "."))
        let integerEnd = pointAt ?? exponentAt ?? rest.endIndex
        guard let whole = digits(rest[..<integerEnd], radix: 10), whole == "0" || !whole.hasPrefix("0") else { return nil }
        guard pointAt != nil || exponentAt != nil else { return Int64(sign + whole).map { .integer($0) } }
        var text = sign + whole
        if let pointAt {
            guard exponentAt.map({ $0 > pointAt }) ?? true,
                let fraction = digits(rest[(pointAt + 1)..<(exponentAt ?? rest.endIndex)], radix: 10)
            else { return nil }
            text += "." + fraction
        }
        if let exponentAt {
            var exponent = rest[(exponentAt + 1)...]
            var exponentSign = ""
            if let first = exponent.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
                exponentSign = first == UInt8(ascii: "-") ? "-" : "+"
                exponent = exponent.dropFirst()
            }
            guard let power = digits(exponent, radix: 10) else { return nil }
            text += "e" + exponentSign + power
        }
        return Double(text).map { .float($0) }
    }

    /// A specific reason `token` is not a TOML number, for the mistakes people make most.
    static func problem(_ token: String) -> String? {
        let unsigned = token.first == "+" || token.first == "-" ? token.dropFirst() : token[...]
        let whole = unsigned.prefix { $0.isASCII && ($0.isNumber || $0 == "_") }
        if whole.count > 1, whole.hasPrefix("0") {
            let integer = whole.count == unsigned.count
            return "'\(token)' has a leading zero, which TOML does not allow"
                + (integer ? "; write an octal number as 0o\(whole.drop { $0 == "0" }) or a string such as \"\(token)\"" : "")
        }
        if ["0X", "0O", "0B"].contains(where: token.hasPrefix) {
            return "'\(token)': TOML's number prefixes are lower case (0x, 0o, 0b)"
        }
        if ["0x", "0o", "0b"].contains(where: token.hasPrefix) {
            return "'\(token)' is not a TOML integer: it needs digits of its base, and at most 64 bits"
        }
        let numeric = token.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE_".contains($0)) }
        if numeric, token.contains("_") {
            return "'\(token)': in a TOML number, '_' must stand between two digits"
        }
        if numeric, token.contains(where: { ".eE".contains($0) }) {
            return "'\(token)' is not a TOML float, which needs digits on both sides of its point and after its exponent"
        }
        if !unsigned.isEmpty, unsigned.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return "'\(token)' is out of range for a 64-bit integer"
        }
        return nil
    }

    /// Whether `token` starts like a TOML date (`1979-05-27`) or time (`07:32:00`).
    static func looksLikeDateOrTime(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        func isDigits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        let date = isDigits(0..<4) && bytes.count > 4 && bytes[4] == UInt8(ascii: "-")
        let time = isDigits(0..<2) && bytes.count > 2 && bytes[2] == UInt8(ascii: ":")
        return date || time
    }

    /// The digits of `bytes` in `radix` with the underscores removed; nil when empty, when a byte is
    /// no digit, or when an underscore does not stand between two digits.
    private static func digits(_ bytes: ArraySlice<UInt8>, radix: Int) -> String? {
        var result = ""
        var previousWasDigit = false
        for byte in bytes {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard TOMLParser.digitValue(byte, radix: radix) != nil else { return nil }
            result.append(Character(Unicode.Scalar(byte)))
            previousWasDigit = true
        }
        return previousWasDigit ? result : nil
    }
}
