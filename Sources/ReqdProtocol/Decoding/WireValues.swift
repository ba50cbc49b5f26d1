/// The values of one scanned line, read on demand: strings are unescaped and checked for UTF-8,
/// and numbers checked against JSON's grammar, only when a field asks for them.
///
/// Each conversion gives what Foundation's `JSONDecoder` gives for the same bytes and the same
/// Swift type, failures included, so that hand decoding and the Codable reference agree (the
/// differential test in ReqdProtocolTests holds them to that).
struct WireValues {
    let bytes: UnsafeBufferPointer<UInt8>
    let tape: JSONTape

    func kind(_ entry: Int) -> JSONTape.Kind { tape.entries[entry].kind }

    /// How Foundation names a value's kind in a type mismatch.
    func describe(_ entry: Int) -> String {
        switch kind(entry) {
        case .simpleString, .string: "a string"
        case .number, .numberWithExponent: "number"
        case .true, .false: "bool"
        case .null: "null"
        case .object: "a dictionary"
        case .array: "an array"
        }
    }

    /// The failure for a value of the wrong kind, or null, where `type` was expected.
    func mismatch(_ entry: Int, _ type: String, at path: [String]) -> WireDecodingFailure {
        if kind(entry) == .null {
            return .wrongType(path: path, description: "Cannot get value of type \(type) -- found null value instead")
        }
        return .wrongType(path: path, description: "Expected to decode \(type) but found \(describe(entry)) instead.")
    }

    func text(_ entry: Int) -> UnsafeBufferPointer<UInt8> {
        let value = tape.entries[entry]
        let start = Int(value.start)
        return UnsafeBufferPointer(rebasing: bytes[start..<(start + Int(value.count))])
    }

    /// An object member's key, checked when its object was opened, as a `String`.
    func key(_ entry: Int) -> String {
        kind(entry) == .string ? (try? Self.unescape(text(entry))) ?? "" : String(decoding: text(entry), as: UTF8.self)
    }

    /// The keys and array positions (`Index N`, as Foundation names them) that lead from the
    /// document's value to the value at `target`.
    func path(to target: Int) -> [String] {
        var path: [String] = []
        var container = 0
        descent: while container != target, kind(container) == .object || kind(container) == .array {
            let isObject = kind(container) == .object
            let end = Int(tape.entries[container].next)
            var child = container + 1
            var position = 0
            while child < end {
                let value = isObject ? child + 1 : child
                let next = tape.after(value)
                if target >= value, target < next {
                    path.append(isObject ? key(child) : "Index \(position)")
                    container = value
                    continue descent
                }
                child = next
                position += 1
            }
            break
        }
        return path
    }

    // MARK: Strings

    /// `path` is only built for a failure: it costs two arrays per field otherwise.
    func string(_ entry: Int, at path: @autoclosure () -> [String]) throws(WireDecodingFailure) -> String {
        switch kind(entry) {
        case .simpleString: return try Self.utf8(text(entry))
        case .string: return try Self.unescape(text(entry))
        default: throw mismatch(entry, "String", at: path())
        }
    }

    /// A string's bytes as a `String`, refusing invalid UTF-8 as Foundation does.
    static func utf8(_ bytes: UnsafeBufferPointer<UInt8>) throws(WireDecodingFailure) -> String {
        try checkUTF8(bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Refuses bytes that are not UTF-8; ASCII, the common case, is passed at a glance.
    static func checkUTF8(_ bytes: UnsafeBufferPointer<UInt8>) throws(WireDecodingFailure) {
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else { throw .corruptValue }
    }

    /// A string with escapes or control characters: escapes are decoded, control characters refused.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) throws(WireDecodingFailure) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var chunkStart = 0
        var index = 0
        func flush(upTo end: Int) throws(WireDecodingFailure) {
            let chunk = UnsafeBufferPointer(rebasing: bytes[chunkStart..<end])
            // Each chunk between escapes must be UTF-8 on its own, as Foundation checks it.
            try checkUTF8(chunk)
            output.append(contentsOf: chunk)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                try flush(upTo: index)
                index += 1
                let escaped = bytes[index]
                index += 1
                if let unescaped = JSONEscape.byte(escaping: escaped) {
                    output.append(unescaped)
                } else if escaped == UInt8(ascii: "u") {
                    output.append(contentsOf: String(Character(try unicodeEscape(bytes, at: &index))).utf8)
                } else {
                    throw .corruptValue
                }
                chunkStart = index
            } else {
                guard byte & 0xE0 != 0 else { throw .corruptValue }
                index += 1
            }
        }
        try flush(upTo: index)
        return String(decoding: output, as: UTF8.self)
    }

    /// The scalar of a `\uXXXX` escape (`index` just past the `u`), joining a surrogate pair.
    private static func unicodeEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) throws(WireDecodingFailure) -> Unicode.Scalar {
        let high = try hex4(bytes, at: &index)
        guard UTF16.isLeadSurrogate(high) else {
            guard let scalar = Unicode.Scalar(UInt32(high)) else { throw .corruptValue }
            return scalar
        }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { throw .corruptValue }
        index += 2
        let low = try hex4(bytes, at: &index)
        guard UTF16.isTrailSurrogate(low),
            let scalar = Unicode.Scalar(0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        else { throw .corruptValue }
        return scalar
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) throws(WireDecodingFailure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw .corruptValue }
        var code: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = JSONEscape.hexDigit(bytes[index]) else { throw .corruptValue }
            code = code << 4 | UInt16(digit)
            index += 1
        }
        return code
    }

    // MARK: Numbers

    func int64(_ entry: Int, _ type: String, at path: @autoclosure () -> [String]) throws(WireDecodingFailure) -> Int64 {
        switch kind(entry) {
        case .number, .numberWithExponent: return try Self.integer(text(entry), exponent: kind(entry) == .numberWithExponent)
        default: throw mismatch(entry, type, at: path())
        }
    }

    /// A JSON number as a `Double`, as Foundation reads one: its grammar checked, then converted
    /// with correct rounding; a number too large for a finite `Double`, or one that is not zero
    /// but rounds to it (`1e-400`), is refused.
    func double(_ entry: Int, at path: @autoclosure () -> [String]) throws(WireDecodingFailure) -> Double {
        switch kind(entry) {
        case .number, .numberWithExponent:
            let text = text(entry)
            try Self.checkGrammar(text, exponent: kind(entry) == .numberWithExponent)
            guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { throw .corruptValue }
            guard value != 0 || Self.isZero(text) else { throw .corruptValue }
            return value
        default: throw mismatch(entry, "Double", at: path())
        }
    }

    func bool(_ entry: Int, at path: @autoclosure () -> [String]) throws(WireDecodingFailure) -> Bool {
        switch kind(entry) {
        case .true: return true
        case .false: return false
        default: throw mismatch(entry, "Bool", at: path())
        }
    }

    /// A JSON number as a whole number, as Foundation reads one into an `Int64`: digits alone
    /// exactly; anything else through its `Double`, which must be a whole number in range, taken
    /// from the decimal text when it is 2^53 or more.
    static func integer(_ text: UnsafeBufferPointer<UInt8>, exponent: Bool) throws(WireDecodingFailure) -> Int64 {
        try checkGrammar(text, exponent: exponent)
        let negative = text[0] == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        var plain = true
        for byte in text.dropFirst(negative ? 1 : 0) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                plain = false
                break
            }
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .corruptValue }
            magnitude = sum
        }
        if plain {
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw .corruptValue }
                return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            }
            guard magnitude <= UInt64(Int64.max) else { throw .corruptValue }
            return Int64(magnitude)
        }
        guard let double = Double(String(decoding: text, as: UTF8.self)), let whole = Int64(exactly: double) else {
            throw .corruptValue
        }
        if abs(double) < 9_007_199_254_740_992 { return whole }
        return try truncatedDecimal(text)
    }

    /// Whether a number that converted to zero was written as zero, as Foundation (6.3) decides it:
    /// it reads the bytes four at a time from the start and the last one to three from the end,
    /// and the first digit 1 to 9, or `e`, it meets says no or yes. So `0e5` and `-0.0e5` are
    /// refused, where `0.0e5` and `-0e5` are zero.
    private static func isZero(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        func check(_ byte: UInt8) -> Bool? {
            switch byte {
            case UInt8(ascii: "1")...UInt8(ascii: "9"): false
            case UInt8(ascii: "e"), UInt8(ascii: "E"): true
            default: nil
            }
        }
        let whole = text.count - text.count % 4
        for byte in text[..<whole] {
            if let answer = check(byte) { return answer }
        }
        for byte in text[whole...].reversed() {
            if let answer = check(byte) { return answer }
        }
        return true
    }

    /// JSON's number grammar, as Foundation checks a number before converting it: no leading
    /// zero, a digit after the sign, a digit before the exponent and at the end.
    private static func checkGrammar(_ text: UnsafeBufferPointer<UInt8>, exponent: Bool) throws(WireDecodingFailure) {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var first = 0
        if text[0] == UInt8(ascii: "-") {
            guard text.count > 1, isDigit(text[1]) else { throw .corruptValue }
            first = 1
        }
        if text[first] == UInt8(ascii: "0"), first + 1 < text.count {
            switch text[first + 1] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: throw .corruptValue
            }
        }
        if exponent {
            var index = first + 1
            while index < text.count {
                if text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
                    guard isDigit(text[index - 1]) else { throw .corruptValue }
                    break
                }
                index += 1
            }
        }
        guard isDigit(text[text.count - 1]) else { throw .corruptValue }
    }

    /// A number of 2^53 or more read as Foundation's `Decimal` reads it: at most 38 significant
    /// digits, trailing zeros dropped, the digits left must fit in a `UInt64`, and the fraction is
    /// cut off.
    private static func truncatedDecimal(_ text: UnsafeBufferPointer<UInt8>) throws(WireDecodingFailure) -> Int64 {
        var digits: [UInt8] = []
        var exponent = 0
        var index = text[0] == UInt8(ascii: "-") ? 1 : 0
        var inFraction = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                guard let value = Int(String(decoding: UnsafeBufferPointer(rebasing: text[(index + 1)...]), as: UTF8.self)) else {
                    throw .corruptValue
                }
                exponent += value
                break
            } else {
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte - UInt8(ascii: "0")) }
                if inFraction { exponent -= 1 }
            }
            index += 1
        }
        if digits.count > 38 {
            exponent += digits.count - 38
            let roundUp = digits[38] >= 5
            digits.removeSubrange(38...)
            var position = 37
            var carry = roundUp
            while carry, position >= 0 {
                digits[position] += 1
                carry = digits[position] == 10
                if carry { digits[position] = 0 }
                position -= 1
            }
            if carry { digits.insert(1, at: 0) }
        }
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        var mantissa: UInt64 = 0
        for digit in digits {
            let (times, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { throw .corruptValue }
            mantissa = sum
        }
        while exponent > 0 {
            let (times, overflow) = mantissa.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw .corruptValue }
            mantissa = times
            exponent -= 1
        }
        while exponent < 0, mantissa > 0 {
            mantissa /= 10
            exponent += 1
        }
        guard mantissa <= UInt64(Int64.max) else { throw .corruptValue }
        return text[0] == UInt8(ascii: "-") ? -Int64(mantissa) : Int64(mantissa)
    }
}
