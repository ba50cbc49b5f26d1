/// The structure of one JSON document, found in one pass over its bytes: every value's kind and
/// where its bytes are, with each array and object knowing where the value after it begins.
///
/// Like Foundation's `JSONDecoder`, whose answers the request decoder must give, the scan checks
/// only the structure; a string's escapes and UTF-8 and a number's digits are checked when a field
/// reads them (`JSONTape.Reader`). A value nobody reads is never converted, so a field the request
/// names but the operation ignores costs one skip. The rules follow Foundation's scanner so that a
/// line reads the same through both: a trailing comma is allowed in arrays and objects, a UTF-8
/// byte-order mark may open the line, and 512 levels of nesting are the most.
struct JSONTape {
    /// What a tape entry holds.
    enum Kind: UInt8 {
        case object, array, null, `true`, `false`
        /// A string with no escape and no control character: its bytes are its UTF-8.
        case simpleString
        case string
        case number
        /// A number with an `e` or `E`.
        case numberWithExponent
    }

    /// One value: for a string or a number, the byte range of its text (a string's without its
    /// quotes); for an array or an object, the number of entries directly inside it (an object's
    /// keys count as entries) and the index of the entry after its last one.
    struct Entry {
        var kind: Kind
        var start: Int32
        var count: Int32
        var next: Int32
    }

    /// The line's structure is not JSON.
    struct Corrupt: Error {}

    /// Arrays and objects nested deeper than this are refused, as Foundation refuses them.
    static let maxDepth = 512

    private(set) var entries: [Entry] = []

    /// Scans a whole document: one value with only whitespace around it.
    init(scanning bytes: UnsafeBufferPointer<UInt8>) throws(Corrupt) {
        // Offsets are kept in 32 bits; request lines are far shorter (`socket.max_line_bytes`).
        guard bytes.count < Int(Int32.max) else { throw Corrupt() }
        var scanner = Scanner(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { scanner.index = 3 }
        // About one entry for every 6 bytes of a stored job's detail; a long line grows as it needs.
        scanner.entries.reserveCapacity(min(max(32, bytes.count / 6), 1024))
        guard scanner.skipWhitespace() else { throw Corrupt() }
        try scanner.value()
        guard !scanner.skipWhitespace() else { throw Corrupt() }
        entries = scanner.entries
    }

    /// The scan in progress.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0
        var entries: [Entry] = []

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// Skips spaces, tabs and line ends; false at the end of the line.
        mutating func skipWhitespace() -> Bool {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return true
                }
            }
            return false
        }

        /// The next byte after whitespace, which must be there.
        mutating func nextByte() throws(Corrupt) -> UInt8 {
            guard skipWhitespace() else { throw Corrupt() }
            return bytes[index]
        }

        mutating func value() throws(Corrupt) {
            switch bytes[index] {
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "{"): try container(.object)
            case UInt8(ascii: "["): try container(.array)
            case UInt8(ascii: "t"): try word("true", .true)
            case UInt8(ascii: "f"): try word("false", .false)
            case UInt8(ascii: "n"): try word("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): number()
            default: throw Corrupt()
            }
        }

        private mutating func container(_ kind: Kind) throws(Corrupt) {
            guard depth < JSONTape.maxDepth else { throw Corrupt() }
            depth += 1
            defer { depth -= 1 }
            index += 1
            let slot = entries.count
            entries.append(Entry(kind: kind, start: Int32(truncatingIfNeeded: index), count: 0, next: 0))
            let close = kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            var count: Int32 = 0
            if try nextByte() == close {
                index += 1
            } else {
                while true {
                    if kind == .object {
                        guard bytes[index] == UInt8(ascii: "\"") else { throw Corrupt() }
                        try string()
                        guard try nextByte() == UInt8(ascii: ":") else { throw Corrupt() }
                        index += 1
                        _ = try nextByte()
                        count += 1
                    }
                    try value()
                    count += 1
                    let byte = try nextByte()
                    index += 1
                    if byte == close { break }
                    guard byte == UInt8(ascii: ",") else { throw Corrupt() }
                    if try nextByte() == close {
                        index += 1
                        break
                    }
                }
            }
            entries[slot].count = count
            entries[slot].next = Int32(truncatingIfNeeded: entries.count)
        }

        /// A string at its opening quote. Escapes are skipped, not read: `\u` must be followed by
        /// four bytes, none of them a quote.
        private mutating func string() throws(Corrupt) {
            index += 1
            let start = index
            var simple = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    entries.append(Entry(kind: simple ? .simpleString : .string, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: index - start), next: 0))
                    index += 1
                    return
                }
                if byte == UInt8(ascii: "\\") {
                    simple = false
                    index += 1
                    guard index < bytes.count else { throw Corrupt() }
                    if bytes[index] == UInt8(ascii: "u") {
                        guard index + 4 < bytes.count else { throw Corrupt() }
                        for offset in 1...4 where bytes[index + offset] == UInt8(ascii: "\"") { throw Corrupt() }
                        index += 4
                    }
                } else if byte & 0xE0 == 0 {
                    simple = false
                }
                index += 1
            }
            throw Corrupt()
        }

        /// A number's bytes: digits, `.`, `+`, `-`, `e` and `E`, checked only when read.
        private mutating func number() {
            let start = index
            var exponent = false
            index += 1
            scan: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"): index += 1
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    exponent = true
                    index += 1
                default: break scan
                }
            }
            entries.append(Entry(kind: exponent ? .numberWithExponent : .number, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: index - start), next: 0))
        }

        private mutating func word(_ word: StaticString, _ kind: Kind) throws(Corrupt) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                word.withUTF8Buffer({ $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)])) })
            else { throw Corrupt() }
            index += count
            entries.append(Entry(kind: kind, start: 0, count: 0, next: 0))
        }
    }

    /// The index of the entry after the value at `entry`, skipping what is inside it.
    func after(_ entry: Int) -> Int {
        switch entries[entry].kind {
        case .object, .array: Int(entries[entry].next)
        default: entry + 1
        }
    }
}
