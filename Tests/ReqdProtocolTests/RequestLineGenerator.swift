import ReqdProtocol
import ReqdCore
import ReqdTestSupport

/// Request lines for the differential test: well-formed requests of every operation written in
/// many legal ways, the same lines mutated byte by byte, and lines of random bytes.
///
/// Deterministic for a seed, so a failure names the seed and the line and can be replayed.
struct RequestLineGenerator {
    /// A JSON value, written out by `render` with random spacing and escapes.
    indirect enum Value {
        /// Text written as it is: a number, `true`, `false` or `null`, or something broken.
        case raw(String)
        case string(String)
        case array([Value])
        case object([(String, Value)])
    }

    typealias Random = RandomSource

    var random: Random

    init(seed: UInt64) { random = Random(seed: seed) }

    // MARK: Values

    static let strings = [
        "", "k", "nightly", "a b", "ünïcödé", "😀", "quote\"inside", "back\\slash", "line\nbreak", "tab\there", "nul\u{0}byte",
        "slash/", "x", "cd_7k2m9x4q1b", "rq_x", "/state == \"done\"", "/progress", "5xx", "404", "X-Tenant: a",
        "Authorization: Bearer t", "POST", "GET", "http://127.0.0.1:8080/hook", "https://example.com/status?id=1", "ftp://x",
        "2026-11-24T06:00:00Z", "2026-11-24T06:00:00.5+01:00", "not a time", "active", "expired", "countdown", "poll",
        "request", "group", "bogus", "\u{7F}", "\u{FEFF}",
    ]
    static let numbers = [
        "0", "1", "-1", "7", "500", "1000", "60000", "-0", "1.0", "1e3", "1E2", "2.5", "100e-2", "0.1e1", "1.5e0", "-0.0",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e400", "1e-400", "12345678901234567890",
        "1.23456789012345678e17", "9007199254740993.0", "4294967296", "2147483648", "3000000000000",
    ]

    mutating func string() -> Value { .string(random.pick(Self.strings)) }
    mutating func integer() -> Value { .raw(random.pick(Self.numbers)) }
    mutating func bool() -> Value { .raw(random.chance(50) ? "true" : "false") }
    mutating func strings() -> Value { .array((0..<random.below(4)).map { _ in string() }) }

    /// Any value at all, for a field given the wrong type.
    mutating func anything(depth: Int = 0) -> Value {
        switch random.below(depth > 2 ? 5 : 7) {
        case 0: return string()
        case 1: return integer()
        case 2: return bool()
        case 3: return .raw("null")
        case 4: return .raw(random.pick(["1.5", "-7", "0", "1e2"]))
        case 5: return .array((0..<random.below(3)).map { _ in anything(depth: depth + 1) })
        default: return .object((0..<random.below(3)).map { _ in (random.pick(Self.strings), anything(depth: depth + 1)) })
        }
    }

    /// The fields of a request: each optional one present or not, sometimes null or of the
    /// wrong type, sometimes a field the operation does not take, in random order.
    mutating func fields(_ fields: [(name: String, required: Bool, make: (inout Self) -> Value)]) -> [(String, Value)] {
        var members: [(String, Value)] = []
        for field in fields {
            guard field.required ? !random.chance(3) : random.chance(40) else { continue }
            let value: Value
            switch random.below(100) {
            case 0..<4: value = .raw("null")
            case 4..<9: value = anything()
            default: value = field.make(&self)
            }
            members.append((field.name, value))
        }
        if random.chance(4) { members.append((random.pick(["bogus", "Key", "duration", "job", "url", "id"]), anything())) }
        if random.chance(3), let first = members.first { members.append((first.0, anything())) }
        for index in members.indices.reversed() where index > 0 {
            members.swapAt(index, random.below(index + 1))
        }
        return members
    }

    mutating func requestSpec(topLevel: Bool = false) -> [(String, Value)] {
        fields([
            ("method", false, { $0.random.chance(80) ? .string($0.random.pick(["GET", "POST", "PUT", "DELETE"])) : $0.string() }),
            ("url", true, { $0.string() }), ("headers", false, { $0.strings() }), ("body", false, { $0.string() }),
            ("body_base64", false, { _ in .string("aGVsbG8=") }), ("max_attempts", false, { $0.integer() }),
            ("backoff_min_ms", false, { $0.integer() }), ("backoff_max_ms", false, { $0.integer() }),
            ("retry_on", false, { $0.strings() }),
        ])
    }

    mutating func nestedRequest() -> Value {
        var members = requestSpec()
        // A key that a request does not take: both decoders refuse it.
        if random.chance(10) { members.append(("ignored", anything())) }
        return .object(members)
    }

    static var hygiene: [(name: String, required: Bool, make: (inout Self) -> Value)] { [
        ("key", false, { $0.string() }), ("scope", false, { $0.string() }), ("ephemeral", false, { $0.bool() }),
        ("bind_connection", false, { $0.bool() }), ("follow", false, { $0.bool() }),
    ] }

    /// A request line's object: `id`, `op`, and the operation's fields.
    mutating func request() -> Value {
        let operation = random.chance(97) ? random.pick(Operation.allCases.map(\.rawValue)) : random.pick(["nope", "", "Hello", "list "])
        var members: [(String, Value)]
        switch operation {
        case "hello": members = fields([("protocol", true, { $0.integer() }), ("client", false, { $0.string() })])
        case "register-countdown":
            members = fields(
                [
                    ("duration_ms", false, { $0.integer() }), ("until", false, { $0.string() }), ("tick_ms", false, { $0.integer() }),
                    ("on_expire", false, { $0.nestedRequest() }),
                ] + Self.hygiene)
        case "register-poll":
            members = fields(
                [
                    ("url", true, { $0.string() }), ("method", false, { $0.string() }), ("headers", false, { $0.strings() }),
                    ("body", false, { $0.string() }), ("body_base64", false, { $0.string() }), ("every_ms", true, { $0.integer() }),
                    ("until", true, { $0.string() }), ("progress", false, { $0.string() }), ("timeout_ms", false, { $0.integer() }),
                    ("max_polls", false, { $0.integer() }), ("max_failures", false, { $0.integer() }),
                ] + Self.hygiene)
        case "submit":
            members =
                requestSpec()
                + fields(
                    [
                        ("dedupe_window_ms", false, { $0.integer() }), ("dedupe_headers", false, { $0.strings() }),
                        ("on_success", false, { $0.nestedRequest() }), ("on_failure", false, { $0.nestedRequest() }),
                    ] + Self.hygiene)
        case "register-group":
            members = fields(
                [
                    ("members", true, { generator in .array((0..<generator.random.below(4)).map { _ in generator.nestedRequest() }) }),
                    ("concurrency", false, { $0.integer() }), ("timeout_ms", false, { $0.integer() }),
                    ("on_complete", false, { $0.nestedRequest() }),
                ] + Self.hygiene)
        case "retry", "delete", "wait": members = fields([("job", true, { $0.string() })])
        case "status": members = fields([("job", false, { $0.string() }), ("targets", false, { $0.bool() }), ("attempts", false, { $0.bool() })])
        case "register-schedule":
            members = fields(
                [
                    ("calendar", false, { $0.random.chance(50) ? .string($0.random.pick(["*:0/15", "Mon..Fri 09:00", "bogus"])) : $0.string() }),
                    ("cron", false, { $0.random.chance(50) ? .string($0.random.pick(["0 3 * * *", "@daily", "61 * * * *"])) : $0.string() }),
                    ("every_ms", false, { $0.integer() }), ("tz", false, { .string($0.random.pick(["UTC", "Europe/Berlin", "Mars/Base"])) }),
                    ("request", false, { $0.nestedRequest() }),
                    ("overlap", false, { .string($0.random.pick(["skip", "queue", "replace", "Skip", "bogus"])) }),
                    ("catch_up", false, { .string($0.random.pick(["one", "none", "all"])) }),
                    ("randomized_delay_ms", false, { $0.integer() }), ("fixed_delay", false, { $0.bool() }),
                ] + Self.hygiene)
        case "cancel", "watch", "pause", "resume":
            members = fields([
                ("job", false, { $0.string() }), ("key", false, { $0.string() }), ("scope", false, { $0.string() }),
                ("abort", false, { $0.bool() }),
            ])
        case "list":
            members = fields([
                ("state", false, { $0.string() }), ("kind", false, { $0.string() }), ("scope", false, { $0.string() }),
                ("key", false, { $0.string() }), ("limit", false, { $0.integer() }),
                ("after", false, { $0.random.chance(50) ? .string("1764000000000000000:cd_7k2m9x4q1b") : $0.string() }),
            ])
        case "unwatch": members = fields([("watch", true, { $0.random.chance(50) ? $0.integer() : $0.string() })])
        case "metrics": members = fields([("soonest", false, { $0.integer() })])
        default: members = []
        }
        let id: Value = random.chance(90) ? (random.chance(50) ? .raw(String(random.below(100_000))) : string()) : anything()
        var head: [(String, Value)] = []
        if !random.chance(2) { head.append(("id", id)) }
        if !random.chance(2) { head.append(("op", random.chance(97) ? .string(operation) : anything())) }
        members = random.chance(80) ? head + members : members + head
        return .object(members)
    }

    // MARK: Text

    /// Writes a value as JSON, with random whitespace, escapes and the odd trailing comma.
    mutating func render(_ value: Value, into text: inout [UInt8]) {
        func space() {
            if random.chance(10) { text.append(contentsOf: Array(random.pick([" ", "  ", "\t", "\r", " \r "]).utf8)) }
        }
        switch value {
        case .raw(let raw): text.append(contentsOf: Array(raw.utf8))
        case .string(let string): renderString(string, into: &text)
        case .array(let elements):
            text.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                space()
                render(element, into: &text)
                space()
            }
            if !elements.isEmpty, random.chance(2) { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "]"))
        case .object(let members):
            text.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                space()
                renderString(member.0, into: &text)
                space()
                text.append(UInt8(ascii: ":"))
                space()
                render(member.1, into: &text)
                space()
            }
            if !members.isEmpty, random.chance(2) { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "}"))
        }
    }

    private mutating func renderString(_ string: String, into text: inout [UInt8]) {
        text.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text.append(contentsOf: Array(#"\""#.utf8))
            case "\\": text.append(contentsOf: Array(#"\\"#.utf8))
            case "\n": text.append(contentsOf: Array(#"\n"#.utf8))
            case "\t": text.append(contentsOf: Array((random.chance(50) ? #"\t"# : #"\u0009"#).utf8))
            case "\u{0}"..."\u{1F}": text.append(contentsOf: Array(#"\u00"#.utf8) + Self.hex(UInt8(scalar.value)))
            case "/" where random.chance(50): text.append(contentsOf: Array(#"\/"#.utf8))
            default:
                if random.chance(5) {
                    for unit in String(scalar).utf16 {
                        text.append(contentsOf: Array(#"\u"#.utf8) + Self.hex(UInt8(unit >> 8)) + Self.hex(UInt8(unit & 0xFF)))
                    }
                } else {
                    text.append(contentsOf: Array(String(scalar).utf8))
                }
            }
        }
        text.append(UInt8(ascii: "\""))
    }

    private static func hex(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
    }

    /// A well-formed line.
    mutating func validLine() -> [UInt8] {
        var text: [UInt8] = []
        if random.chance(1) { text.append(contentsOf: [0xEF, 0xBB, 0xBF]) }
        render(request(), into: &text)
        return text
    }

    /// A well-formed line with one to three bytes changed, inserted, deleted or repeated.
    mutating func mutatedLine() -> [UInt8] {
        var text = validLine()
        let interesting = Array(#"{}[],:"\/ 0123456789-+.eEtrufalsn"#.utf8) + [0x00, 0x09, 0x0D, 0x7F, 0x80, 0xC3, 0xFF, 0xED, 0xA0]
        for _ in 0..<(1 + random.below(3)) where !text.isEmpty {
            let at = random.below(text.count)
            let byte = random.chance(70) ? random.pick(interesting) : UInt8(truncatingIfNeeded: random.next())
            switch random.below(4) {
            case 0: text[at] = byte
            case 1: text.insert(byte, at: at)
            case 2: text.remove(at: at)
            default:
                let end = min(text.count, at + 1 + random.below(8))
                text.insert(contentsOf: text[at..<end], at: at)
            }
        }
        return text
    }

    /// Random bytes, mostly JSON's own characters.
    mutating func randomLine() -> [UInt8] {
        let alphabet = Array(#"{}[],:"\ 01-.eEtrufalsnidop"#.utf8)
        return (0..<random.below(40)).map { _ in
            random.chance(85) ? random.pick(alphabet) : UInt8(truncatingIfNeeded: random.next())
        }
    }
}
