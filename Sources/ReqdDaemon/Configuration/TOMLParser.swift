/// A one-pass reader of TOML 1.0 over the document's UTF-8 bytes, for the parts `TOMLSubset` accepts.
struct TOMLParser {
    /// Why the document was refused, and on which line.
    struct Failure: Error {
        let line: Int
        let problem: String
        var key: String?
    }

    let bytes: [UInt8]
    var index = 0
    var line = 1
    private var tree = TOMLTree()
    private var table: [String] = []

    init(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        self.bytes = bytes
    }

    /// Reads the whole document.
    mutating func document() throws(Failure) -> TOMLTree {
        while true {
            skipSpaces()
            guard let byte = peek() else { return tree }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): try endOfLine()
            case UInt8(ascii: "["): try header()
            default: try keyValue()
            }
        }
    }

    /// `key` as TOML writes it: bare when it can be, otherwise quoted.
    static func written(key: String) -> String {
        if !key.isEmpty, key.utf8.allSatisfy(isBareKeyByte) { return key }
        var quoted = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    // MARK: Lines

    private mutating func header() throws(Failure) {
        let start = line
        index += 1
        guard peek() != UInt8(ascii: "[") else {
            throw fail("arrays of tables ([[...]]) are not used in reqd's configuration")
        }
        skipSpaces()
        let path = try key()
        skipSpaces()
        guard peek() == UInt8(ascii: "]") else { throw fail("expected ']' to close the table header") }
        index += 1
        do {
            try tree.defineTable(path)
        } catch {
            throw Failure(line: start, problem: error.problem, key: error.key)
        }
        table = path
        try endOfLine()
    }

    private mutating func keyValue() throws(Failure) {
        let start = line
        let path = try key()
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key '\((table + path).map(Self.written(key:)).joined(separator: "."))'")
        }
        index += 1
        skipSpaces()
        let value: TOMLSubset.Value
        do {
            value = try self.value()
        } catch {
            let name = (table + path).map(Self.written(key:)).joined(separator: ".")
            throw Failure(line: error.line, problem: "cannot read the value of '\(name)': \(error.problem)", key: name)
        }
        do {
            try tree.set(value, line: start, key: path, inTable: table)
        } catch {
            throw Failure(line: start, problem: error.problem, key: error.key)
        }
        try endOfLine()
    }

    /// Allows spaces and a comment, then needs a newline or the end of the file.
    private mutating func endOfLine() throws(Failure) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { try comment() }
        guard peek() != nil, !skipNewline() else { return }
        if peek() == UInt8(ascii: "\r") { throw fail("a carriage return must be followed by a newline") }
        throw fail("expected the end of the line, found '\(rest())'")
    }

    /// Steps over a newline (LF or CRLF) at the cursor, counting the line; false when none is there.
    mutating func skipNewline() -> Bool {
        if peek() == UInt8(ascii: "\n") {
            index += 1
        } else if peek() == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            index += 2
        } else {
            return false
        }
        line += 1
        return true
    }

    private mutating func comment() throws(Failure) {
        index += 1
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            guard !Self.isControl(byte) else { throw fail("a control character is not allowed in a comment") }
            index += 1
        }
    }

    // MARK: Keys

    /// A key of one or more parts joined by dots, with optional spaces around each dot.
    private mutating func key() throws(Failure) -> [String] {
        var parts: [String] = []
        while true {
            parts.append(try simpleKey())
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return parts }
            index += 1
            skipSpaces()
        }
    }

    private mutating func simpleKey() throws(Failure) -> String {
        switch peek() {
        case let quote? where quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"):
            guard !isTripleQuote(quote) else { throw fail("a key cannot be a multi-line string") }
            return try string(quote: quote)
        default:
            let start = index
            while let byte = peek(), Self.isBareKeyByte(byte) { index += 1 }
            guard index > start else {
                if peek() == nil || peek() == UInt8(ascii: "\n") { throw fail("expected a key") }
                throw fail("expected a key, found '\(rest())'; a key is letters, digits, '_' and '-', or quoted")
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    // MARK: Values

    private mutating func value() throws(Failure) -> TOMLSubset.Value {
        switch peek() {
        case nil, UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"), UInt8(ascii: ","), UInt8(ascii: "]"):
            throw fail("expected a value")
        case let quote? where quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"):
            return .string(isTripleQuote(quote) ? try multiLineString(quote: quote) : try string(quote: quote))
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "{"): throw fail("inline tables ({...}) are not used in reqd's configuration; write a [table]")
        default: return try scalar()
        }
    }

    private mutating func array() throws(Failure) -> TOMLSubset.Value {
        let start = line
        index += 1
        var elements: [TOMLSubset.Value] = []
        while true {
            try skipBlank()
            guard let byte = peek() else { throw Failure(line: start, problem: "the array begun on this line is never closed") }
            if byte == UInt8(ascii: "]") { break }
            elements.append(try value())
            try skipBlank()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): break
            case nil: throw Failure(line: start, problem: "the array begun on this line is never closed")
            default: throw fail("expected ',' or ']' in the array, found '\(rest())'")
            }
            if peek() == UInt8(ascii: "]") { break }
        }
        index += 1
        return .array(elements)
    }

    /// Skips spaces, newlines and comments inside an array.
    private mutating func skipBlank() throws(Failure) {
        while true {
            skipSpaces()
            if peek() == UInt8(ascii: "#") { try comment() }
            guard skipNewline() else {
                if peek() == UInt8(ascii: "\r") { throw fail("a carriage return must be followed by a newline") }
                return
            }
        }
    }

    /// A boolean, integer or float: the run of bytes up to the next delimiter, read by TOML's grammar.
    private mutating func scalar() throws(Failure) -> TOMLSubset.Value {
        let start = index
        while let byte = peek(), !Self.endsScalar(byte) { index += 1 }
        let token = String(decoding: bytes[start..<index], as: UTF8.self)
        if token == "true" { return .boolean(true) }
        if token == "false" { return .boolean(false) }
        if let value = TOMLNumber.read(token) { return value }
        if TOMLNumber.looksLikeDateOrTime(token) {
            throw fail("dates and times are not used in reqd's configuration; write a duration as a string such as \"15m\"")
        }
        if let problem = TOMLNumber.problem(token) { throw fail(problem) }
        throw fail("'\(token)' is not a TOML value; a string needs quotes")
    }

    // MARK: Bytes

    func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    /// Whether three `quote`s begin at the cursor.
    private func isTripleQuote(_ quote: UInt8) -> Bool {
        peek() == quote && peek(1) == quote && peek(2) == quote
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// The rest of the current line, for error messages.
    private func rest() -> String {
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), end - index < 40 { end += 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self).trimmingSuffix { $0 == "\r" }
    }

    func fail(_ problem: String) -> Failure {
        Failure(line: line, problem: problem)
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","),
            UInt8(ascii: "]"), UInt8(ascii: "#"):
            true
        default: false
        }
    }

    /// The value of an ASCII digit in `radix` (up to 16), or nil.
    static func digitValue(_ byte: UInt8, radix: Int) -> Int? {
        let value: Int
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var result = self
        while let last = result.last, predicate(last) { result.removeLast() }
        return result
    }
}
