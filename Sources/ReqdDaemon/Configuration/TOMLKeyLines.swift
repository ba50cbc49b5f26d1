/// The line each key of a TOML document was set on, for messages about a setting's value.
///
/// TOMLKit reads the document and decides whether it is TOML; this only finds lines, so it assumes
/// a valid document. It follows table headers, bare, quoted and dotted keys, and steps over values
/// (strings of all four kinds, arrays and inline tables over several lines), so a line inside a
/// multi-line string is never taken for a key.
struct TOMLKeyLines {
    private var lines: [String: Int] = [:]
    /// The first line with a NUL in a string's escapes (`\u0000`): TOMLKit hands strings over as C
    /// strings, which would end there.
    private(set) var nulEscapeLine: Int?
    /// Each statement's dotted key and the lines it spans, in order.
    private var statements: [(key: String, lines: ClosedRange<Int>)] = []

    /// The line `key` (dotted, as `TOMLSubset.written(key:)` writes each part) was set on; a
    /// table's key gives its header's line.
    subscript(key: String) -> Int? { lines[key] }

    /// The key of the statement that spans `line` (a header, or a key and its value), if any.
    func key(onLine line: Int) -> String? { statements.last { $0.lines.contains(line) }?.key }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    init(_ text: String) {
        var cursor = Cursor(Array(text.utf8))
        var table = ""
        defer { nulEscapeLine = cursor.nulEscapeLine }
        while true {
            cursor.skipBlank()
            guard let byte = cursor.peek() else { return }
            let line = cursor.line
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                cursor.skipLine()
            case UInt8(ascii: "["):
                cursor.index += 1
                if cursor.peek() == UInt8(ascii: "[") { cursor.index += 1 }
                table = cursor.dottedKey()
                cursor.skipLine()
                note(table, lines: line...max(line, cursor.line - 1))
            default:
                let key = cursor.dottedKey()
                let path = table.isEmpty ? key : table + "." + key
                cursor.skipValue()
                note(path, lines: line...max(line, cursor.peek() == nil ? cursor.line : cursor.line - 1))
            }
        }
    }

    private mutating func note(_ path: String, lines span: ClosedRange<Int>) {
        guard !path.isEmpty else { return }
        if lines[path] == nil { lines[path] = span.lowerBound }
        statements.append((path, span))
    }

    /// A position in the document's bytes, counting lines.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var nulEscapeLine: Int?

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        func peek(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

        mutating func advance() {
            if peek() == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        mutating func skipBlank() {
            while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
        }

        /// Up to and past the end of the line.
        mutating func skipLine() {
            while let byte = peek() {
                advance()
                if byte == UInt8(ascii: "\n") { return }
            }
        }

        /// Reads a dotted key, each part as `TOMLSubset.written(key:)` writes it, up to `=`, `]` or the line's end.
        mutating func dottedKey() -> String {
            var parts: [String] = []
            while true {
                skipBlank()
                guard let byte = peek() else { break }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    parts.append(TOMLSubset.written(key: quoted(byte)))
                } else if TOMLKeyLines.isBareKeyByte(byte) {
                    let start = index
                    while let next = peek(), TOMLKeyLines.isBareKeyByte(next) { index += 1 }
                    parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                } else {
                    break
                }
                skipBlank()
                guard peek() == UInt8(ascii: ".") else { break }
                index += 1
            }
            return parts.joined(separator: ".")
        }

        /// Steps over `= value` and the rest of its last line, whatever lines the value spans.
        mutating func skipValue() {
            var depth = 0
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    _ = quoted(byte)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    index += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    index += 1
                case UInt8(ascii: "#"):
                    while let next = peek(), next != UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "\n"):
                    advance()
                    if depth <= 0 { return }
                default:
                    index += 1
                }
            }
        }

        /// Reads a string of any of the four kinds at the cursor and returns its text, escapes
        /// decoded as TOML decodes them.
        mutating func quoted(_ quote: UInt8) -> String {
            let multiLine = peek(1) == quote && peek(2) == quote
            index += multiLine ? 3 : 1
            var text: [UInt8] = []
            while let byte = peek() {
                if byte == quote {
                    if !multiLine {
                        index += 1
                        break
                    }
                    if peek(1) == quote, peek(2) == quote {
                        // Up to two more quotes may belong to the string before the closing three.
                        var run = 3
                        while peek(run) == quote, run < 5 { run += 1 }
                        text += Array(repeating: quote, count: run - 3)
                        index += run
                        break
                    }
                }
                if byte == UInt8(ascii: "\\"), quote == UInt8(ascii: "\""), let escaped = peek(1) {
                    switch escaped {
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "u"), UInt8(ascii: "U"):
                        let digits = escaped == UInt8(ascii: "u") ? 4 : 8
                        let hex = (0..<digits).compactMap { peek(2 + $0) }
                        if hex.count == digits, let value = UInt32(String(decoding: hex, as: UTF8.self), radix: 16),
                            let scalar = Unicode.Scalar(value)
                        {
                            if value == 0, nulEscapeLine == nil { nulEscapeLine = line }
                            text += Array(String(Character(scalar)).utf8)
                            index += 2 + digits
                            continue
                        }
                        text.append(escaped)
                    case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                        advance()
                        continue
                    default: text.append(escaped)
                    }
                    index += 2
                    continue
                }
                text.append(byte)
                advance()
            }
            return String(decoding: text, as: UTF8.self)
        }
    }
}
