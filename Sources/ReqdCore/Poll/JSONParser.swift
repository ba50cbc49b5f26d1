import ReqdProtocol

/// A JSON (RFC 8259) parser straight from UTF-8 bytes into `JSONValue`.
///
/// Every poll answer whose condition reads the body goes through here, so it is on the hot path:
/// Foundation's `JSONDecoder` took about 15 % of the HTTP executor's CPU time per request
/// (BENCHMARKS.md). Nesting is capped so a hostile body cannot exhaust the stack.
struct JSONParser {
    /// Where and why the text is not JSON; `offset` counts bytes from the start.
    struct Failure: Error, Hashable {
        var offset: Int
        var message: String
    }

    /// Arrays and objects nested deeper than this are refused.
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) {
        self.bytes = bytes
        index = start
    }

    /// Parses a whole document: one value with optional whitespace around it.
    static func document(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
            var parser = JSONParser(buffer, from: 0)
            parser.skipWhitespace()
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.failure("unexpected text after the JSON value") }
            return value
        }
    }

    /// Parses one value at `start` and returns it with the offset just past it; what follows is not read.
    static func prefix(_ bytes: [UInt8], from start: Int) throws(Failure) -> (value: JSONValue, end: Int) {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
            var parser = JSONParser(buffer, from: start)
            let value = try parser.value()
            return (value, parser.index)
        }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("expected a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("expected a JSON value: a \"string\", a number, true, false, null, an array or an object")
        }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
            let name = try string()
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { throw failure("expected ':' after the member name") }
            skipWhitespace()
            members[name] = try value()
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return .object(members) }
            guard take(UInt8(ascii: ",")) else { throw failure("expected ',' or '}'") }
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return .array(elements) }
            guard take(UInt8(ascii: ",")) else { throw failure("expected ',' or ']'") }
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
    }

    /// A string at the opening quote; the common case without escapes is one copy.
    private mutating func string() throws(Failure) -> String {
        let open = index
        index += 1
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                return try escapedString(from: start)
            case 0..<0x20:
                throw failure("a control character must be escaped inside a string")
            default:
                index += 1
            }
        }
        index = open
        throw failure("the string is not closed with '\"'")
    }

    /// The rest of a string that has escapes; `start` is just past the opening quote.
    private mutating func escapedString(from start: Int) throws(Failure) -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                if let unescaped = JSONEscape.byte(escaping: escaped) {
                    utf8.append(unescaped)
                } else if escaped == UInt8(ascii: "u") {
                    utf8.append(contentsOf: String(Character(try unicodeEscape())).utf8)
                } else {
                    index -= 2
                    throw failure("unknown escape '\\\(Character(Unicode.Scalar(escaped)))'")
                }
            case 0..<0x20:
                index -= 1
                throw failure("a control character must be escaped inside a string")
            default:
                utf8.append(byte)
            }
        }
        index = start - 1
        throw failure("the string is not closed with '\"'")
    }

    /// The scalar of a `\uXXXX` escape (index just past the `u`), joining a surrogate pair.
    private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
        let escapeStart = index - 2
        let high = try hex4(escapeStart: escapeStart)
        if (0xD800..<0xDC00).contains(high), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
        {
            index += 2
            let low = try hex4(escapeStart: index - 2)
            if (0xDC00..<0xE000).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                return scalar
            }
            index = escapeStart
            throw failure("bad \\u escape: not a surrogate pair")
        }
        guard let scalar = Unicode.Scalar(high) else {
            index = escapeStart
            throw failure("bad \\u escape: a lone surrogate")
        }
        return scalar
    }

    private mutating func hex4(escapeStart: Int) throws(Failure) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexDigit(bytes[index]) else {
                index = escapeStart
                throw failure("bad \\u escape")
            }
            code = code << 4 | digit
            index += 1
        }
        return code
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? { JSONEscape.hexDigit(byte).map(UInt32.init) }

    /// A number in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws(Failure) -> Double {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
        } else if digits() == 0 {
            index = start
            throw failure("expected a JSON value: a \"string\", a number, true, false or null")
        }
        if take(UInt8(ascii: ".")), digits() == 0 { throw failure("expected a digit after '.'") }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            if digits() == 0 { throw failure("expected a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            index = start
            throw failure("the number is out of range")
        }
        return number
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func word(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            word.withUTF8Buffer({ $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)])) })
        else { throw failure("expected a JSON value: a \"string\", a number, true, false or null") }
        index += count
        return value
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func failure(_ message: String) -> Failure { Failure(offset: index, message: message) }
}
