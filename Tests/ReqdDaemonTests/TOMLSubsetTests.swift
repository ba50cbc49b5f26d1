import Foundation
import Testing
@testable import ReqdDaemon

/// The configuration reader against TOML 1.0: documents it must read, and documents it must refuse
/// with the right line.
@Suite("TOML")
struct TOMLSubsetTests {
    typealias Value = TOMLSubset.Value

    static let valid: [(document: String, expected: [String: Value])] = [
        ("a = 1", ["a": .integer(1)]),
        ("a = +99\nb = -17\nc = -0\nd = +0", ["a": .integer(99), "b": .integer(-17), "c": .integer(0), "d": .integer(0)]),
        ("a = 1_000\nb = 5_349_221\nc = 1_2_3_4_5", ["a": .integer(1000), "b": .integer(5_349_221), "c": .integer(12345)]),
        ("a = 0xDEADBEEF\nb = 0xdead_beef\nc = 0x00ff", ["a": .integer(0xDEAD_BEEF), "b": .integer(0xDEAD_BEEF), "c": .integer(255)]),
        ("a = 0o755\nb = 0o0_1", ["a": .integer(0o755), "b": .integer(1)]),
        ("a = 0b1101\nb = 0b0000_0001", ["a": .integer(13), "b": .integer(1)]),
        ("a = 9223372036854775807\nb = -9223372036854775808", ["a": .integer(.max), "b": .integer(.min)]),
        ("a = 3.14\nb = -0.01\nc = +1.0\nd = 0.0", ["a": .float(3.14), "b": .float(-0.01), "c": .float(1), "d": .float(0)]),
        ("a = 5e+22\nb = 1e06\nc = -2E-2\nd = 6.626e-34", ["a": .float(5e22), "b": .float(1e6), "c": .float(-0.02), "d": .float(6.626e-34)]),
        ("a = 224_617.445_991\nb = 1e1_0", ["a": .float(224_617.445_991), "b": .float(1e10)]),
        ("a = inf\nb = +inf\nc = -inf", ["a": .float(.infinity), "b": .float(.infinity), "c": .float(-.infinity)]),
        ("a = true\nb = false", ["a": .boolean(true), "b": .boolean(false)]),
        (#"a = "tab\there \"q\" \\ \u00E9 \U0001F600 \b\f\r\n""#, ["a": .string("tab\there \"q\" \\ é 😀 \u{08}\u{0C}\r\n")]),
        (#"a = 'C:\Users\nodejs\templates'"#, ["a": .string(#"C:\Users\nodejs\templates"#)]),
        (#"a = '<\i\c*\s*>'"# + "\nb = ''", ["a": .string(#"<\i\c*\s*>"#), "b": .string("")]),
        ("a = \"\"\"\nRoses\nViolets\"\"\"", ["a": .string("Roses\nViolets")]),
        ("a = \"\"\"\\\n   The quick \\\n\n   brown fox.\\\n   \"\"\"", ["a": .string("The quick brown fox.")]),
        ("a = \"\"\"\"\"x\"\"\"\"\"", ["a": .string("\"\"x\"\"")]),
        ("a = '''\nfirst\n  second\\n'''", ["a": .string("first\n  second\\n")]),
        ("a = ''''That,' she said'''", ["a": .string("'That,' she said")]),
        ("a = \"日本語 ☃\"", ["a": .string("日本語 ☃")]),
        ("\"a.b\" = 1\n'lit' = 2\n\"\" = 3\n\"ʎǝʞ\" = 4", ["\"a.b\"": .integer(1), "lit": .integer(2), "\"\"": .integer(3), "\"ʎǝʞ\"": .integer(4)]),
        ("a . b\t.  c = 1\nd.\"e.f\" = 2", ["a.b.c": .integer(1), "d.\"e.f\"": .integer(2)]),
        ("1234 = 5\n-_ = 6\n3.14 = 7", ["1234": .integer(5), "-_": .integer(6), "3.14": .integer(7)]),
        ("[ a . \"b c\" ]\nx = 1\n[a]\ny = 2", ["a.\"b c\".x": .integer(1), "a.y": .integer(2)]),
        ("[a.b.c]\nx = 1\n[a.b]\ny = 2\n[a]\nz = 3", ["a.b.c.x": .integer(1), "a.b.y": .integer(2), "a.z": .integer(3)]),
        (
            "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true",
            ["fruit.apple.color": .string("red"), "fruit.apple.taste.sweet": .boolean(true), "fruit.apple.texture.smooth": .boolean(true)]
        ),
        ("a = []\nb = [ ]\nc = [1,]", ["a": .array([]), "b": .array([]), "c": .array([.integer(1)])]),
        (
            "a = [1, \"two\", [true, 4.5], []]",
            ["a": .array([.integer(1), .string("two"), .array([.boolean(true), .float(4.5)]), .array([])])]
        ),
        (
            "a = [ # first\n  \"x\", # second\n\n  # nothing\n  'y'\n  ,\n]\nb = 1",
            ["a": .array([.string("x"), .string("y")]), "b": .integer(1)]
        ),
        ("# only a comment\n\n  # indented\na = 1 # trailing\n[t] # table\nb = \"# not a comment\"", ["a": .integer(1), "t.b": .string("# not a comment")]),
        ("a = 1\r\n[t]\r\nb = \"\"\"x\r\ny\"\"\"\r\n", ["a": .integer(1), "t.b": .string("x\ny")]),
        ("\u{FEFF}a = 1", ["a": .integer(1)]),
        ("\ta\t=\t1\t\n\t[\tt\t]\t\nb=2", ["a": .integer(1), "t.b": .integer(2)]),
        ("[socket]\nmode = 0o440\n[daemon]\nlog_level = \"debug\"", ["socket.mode": .integer(0o440), "daemon.log_level": .string("debug")]),
        ("[t]\n\"a\" = 1\n'b' = 2\n[t.u]", ["t.a": .integer(1), "t.b": .integer(2)]),
    ]

    static let invalid: [(document: String, line: Int, problem: String)] = [
        ("[socket]\nmode = 0440", 2, "decimal integer: leading zeroes are prohibited"),
        ("a = 01", 1, "decimal integer: leading zeroes are prohibited"),
        ("a = 00", 1, "decimal integer: leading zeroes are prohibited"),
        ("a = 1__0", 1, "decimal integer: underscores may only follow digits"),
        ("a = _1", 1, "value: values may not begin with underscores"),
        ("a = 1_", 1, "key-value pair: expected a comment or whitespace, saw '_'"),
        ("a = 0X1F", 1, "hexadecimal integer: expected 'x', saw 'X'"),
        ("a = +0x1F", 1, "hexadecimal integer: expected '0', saw '+'"),
        ("a = 0x", 1, "hexadecimal integer: encountered end-of-file"),
        ("a = 0b102", 1, "binary integer: expected digit, saw '2'"),
        ("a = 1.", 1, "floating-point: encountered end-of-file"),
        ("a = .5", 1, "floating-point: expected decimal digit, saw '.'"),
        ("a = 1.e5", 1, "floating-point: expected decimal digit, saw 'e'"),
        ("a = 03.14", 1, "floating-point: leading zeroes are prohibited"),
        ("a = 1.5e", 1, "floating-point: encountered end-of-file"),
        ("a = 9223372036854775808", 1, "decimal integer: '9223372036854775808' is not representable in 64 bits"),
        ("a = 0x8000000000000000", 1, "hexadecimal integer: '0x8000000000000000' is not representable in 64 bits"),
        ("a = TRUE", 1, "boolean: expected 'true', saw 'T'"),
        ("a = tru", 1, "boolean: encountered end-of-file"),
        ("a = bare", 1, "value: could not determine value type"),
        ("\n\na = \"unterminated", 3, "string: encountered end-of-file"),
        ("a = \"two\nlines\"", 1, "string: unescaped control characters other than TAB (U+0009) are explicitly prohibited"),
        (#"a = "bad \x escape""#, 1, #"string: escape sequence '\x' is not supported in TOML 1.0.0 and earlier"#),
        (#"a = "\e""#, 1, #"string: escape sequence '\e' is not supported in TOML 1.0.0 and earlier"#),
        (#"a = "\uD800""#, 1, "unicode scalar sequence: unicode surrogates (U+D800 - U+DFFF) are explicitly prohibited"),
        (#"a = "\u12""#, 1, #"unicode scalar sequence: expected hex digit, saw '"'"#),
        ("a = 'two\nlines'", 1, "literal string: control characters other than TAB (U+0009) are explicitly prohibited"),
        ("a = \"ctrl \u{01}\"", 1, "string: unescaped control characters other than TAB (U+0009) are explicitly prohibited"),
        ("a = \"del \u{7F}\"", 1, "string: unescaped control characters other than TAB (U+0009) are explicitly prohibited"),
        ("# comment \u{01}\na = 1", 1, "comment: control characters other than TAB (U+0009) are explicitly prohibited in comments"),
        ("a = \"\"\"x\n\ny", 3, "string: encountered end-of-file"),
        ("a = \"\"\"x\"\"\"\"\"\"", 1, #"key-value pair: expected a comment or whitespace, saw '"'"#),
        ("a = '''x", 1, "literal string: encountered end-of-file"),
        ("a = 1\n\na = 2", 3, "key-value pair: cannot redefine existing integer 'a'"),
        ("\"a\" = 1\na = 2", 2, "key-value pair: cannot redefine existing integer 'a'"),
        ("[t]\nx = 1\n\n[t]", 4, "table header: cannot redefine existing table 't'"),
        ("a = 1\n[a]", 2, "table header: cannot redefine existing integer 'a' as table"),
        ("a.b = 1\na.b.c = 2", 2, "key-value pair: cannot redefine existing integer as dotted key-value pair"),
        ("[a]\nb.c = 1\n[a.b]", 3, "table header: cannot redefine existing table 'a.b'"),
        ("a.b.c = 1\n[a.b]", 2, "table header: cannot redefine existing table 'a.b'"),
        ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, "key-value pair: cannot redefine existing table as dotted key-value pair"),
        ("a = {x = 1}", 1, "'a' is an inline table ({...}), which reqd's configuration does not use"),
        ("[[a]]\nx = 1", 1, "'a' holds tables ([[...]] or {...}), which reqd's configuration does not use"),
        ("a = 1979-05-27", 1, "'a' is a date or time, which no setting takes"),
        ("a = 1979-05-27T07:32:00Z", 1, "'a' is a date or time, which no setting takes"),
        ("a = 07:32:00", 1, "'a' is a date or time, which no setting takes"),
        ("a = 1 b = 2", 1, "key-value pair: expected a comment or whitespace, saw 'b'"),
        ("a = \"x\" \"y\"", 1, #"key-value pair: expected a comment or whitespace, saw '"'"#),
        ("[t] x = 1", 1, "table header: expected a comment or whitespace, saw 'x'"),
        ("a = ", 1, "key-value pair: encountered end-of-file"),
        ("a = # nothing", 1, "key-value pair: expected value, saw '#'"),
        ("= 1", 1, "root table: expected keys, tables, whitespace or comments, saw '='"),
        ("a b = 1", 1, "key-value pair: expected '=', saw 'b'"),
        ("a.= 1", 1, "key: expected bare key starting character or string delimiter, saw '='"),
        ("a", 1, "key-value pair: encountered end-of-file"),
        ("\"\"\"a\"\"\" = 1", 1, "key: multi-line strings are prohibited in keys"),
        ("x = 1\na = [1, 2", 2, "array: encountered end-of-file"),
        ("a = [1 2]", 1, "array: expected comma or closing ']', saw '2'"),
        ("a = [,]", 1, "array: expected value or closing ']', saw comma"),
        ("# x\u{0}\n[socket]\nmode = \"0777\"", 1, "NUL byte"),
        ("[socket]\npath = \"/run/a\\u0000b\"", 2, "\\u0000"),
        ("a = 1\rb = 2", 1, #"key-value pair: expected '\n' after '\r', saw 'b'"#),
        ("[a", 1, "table header: encountered end-of-file"),
        ("[]", 1, "table header: tables with blank bare keys are explicitly prohibited"),
        ("[a.]", 1, "key: expected bare key starting character or string delimiter, saw ']'"),
        ("[a]]", 1, "table header: expected a comment or whitespace, saw ']'"),
    ]

    @Test("TOML 1.0 documents are read to the values TOML gives them")
    func readsValidDocuments() throws {
        for (document, expected) in Self.valid {
            let parsed = try TOMLSubset.parse(document, file: "t.toml").mapValues(\.value)
            #expect(parsed == expected, "\(document.debugDescription)")
        }
        let nan = try TOMLSubset.parse("a = nan\nb = -nan\nc = +nan", file: "t.toml")
        for key in ["a", "b", "c"] {
            guard case .float(let value)? = nan[key]?.value else {
                Issue.record("\(key) is not a float")
                continue
            }
            #expect(value.isNaN)
        }
    }

    @Test("documents TOML forbids, or that use what no setting takes, are refused with their line")
    func refusesInvalidDocuments() {
        #expect(Self.valid.count + Self.invalid.count >= 50)
        for (document, line, problem) in Self.invalid {
            do {
                let parsed = try TOMLSubset.parse(document, file: "t.toml")
                Issue.record("accepted \(document.debugDescription) as \(parsed.mapValues(\.value))")
            } catch {
                #expect(error.code == .malformedConfiguration)
                #expect(error.message.hasPrefix("t.toml:\(line): "), "\(document.debugDescription): \(error.message)")
                #expect(error.message.contains(problem), "\(document.debugDescription): \(error.message)")
            }
        }
    }

    @Test("each value's line is the line its key is on, even after multi-line strings and arrays")
    func linesOfValues() throws {
        let parsed = try TOMLSubset.parse("a = \"\"\"\n1\n2\"\"\"\nb = [\n 1,\n]\n\n[t]\nc = 3", file: "t.toml")
        #expect(parsed["a"]?.line == 1)
        #expect(parsed["b"]?.line == 4)
        #expect(parsed["t.c"]?.line == 9)

        // A line inside a multi-line string that looks like a key, quoted and dotted keys, an
        // array over two lines with a bracket in a string and in a comment.
        let tricky = try TOMLSubset.parse(
            #"""
            a = '''
            x = 1
            '''
            b = """\
             y = 2"""
            ["t.u" . v]
            'k' = [ "]", # ]
             2 ]
            w."z" = 3
            """#, file: "t.toml")
        #expect(try TOMLSubset.parse(#"[socket]\n"mod\u0065" = 1"#.replacingOccurrences(of: "\\n", with: "\n"), file: "t.toml")["socket.mode"]?.line == 2)
        #expect(tricky["a"]?.line == 1)
        #expect(tricky["x"] == nil && tricky["y"] == nil)
        #expect(tricky["b"]?.line == 4)
        #expect(tricky[#""t.u".v.k"#]?.line == 7)
        #expect(tricky[#""t.u".v.w.z"#]?.line == 9)
    }

    @Test("a refused value names its key, and mode = 0440 is refused instead of read as decimal")
    func refusedValueNamesKey() {
        do {
            _ = try TOMLSubset.parse("[socket]\nmode = 0440\n", file: "reqd.toml")
            Issue.record("0440 was accepted")
        } catch {
            #expect(error.key == "socket.mode")
            #expect(error.message.contains("socket.mode"))
            #expect(error.message.contains("0o440"))
        }
    }
}
