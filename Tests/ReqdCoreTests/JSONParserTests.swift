import Foundation
import Testing
@testable import ReqdCore

@Suite("JSON parser")
struct JSONParserTests {
    /// The same document read by Foundation's `JSONDecoder`, for comparison.
    private struct Reference: Decodable {
        var value: JSONValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let bool = try? container.decode(Bool.self) {
                value = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                value = .number(number)
            } else if let string = try? container.decode(String.self) {
                value = .string(string)
            } else if let array = try? container.decode([Reference].self) {
                value = .array(array.map(\.value))
            } else {
                value = .object(try container.decode([String: Reference].self).mapValues(\.value))
            }
        }
    }

    private func foundation(_ text: String) -> JSONValue? {
        (try? JSONDecoder().decode(Reference.self, from: Data(text.utf8)))?.value
    }

    @Test("documents read the same as with Foundation", arguments: [
        "{\"state\":\"running\",\"progress\":42,\"id\":\"job-7\"}",
        " [1, -2, 3.5, -0.25e2, 1E3, 0, 1e-2] ",
        "{\"a\":{\"b\":[true,false,null,{}, []]},\"c\":\"\"}",
        "\"a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f\"",
        "\"\\u00e9\\u4e2d\\ud83d\\ude00 plain é 中 😀\"",
        "{\"dup\":1,\"dup\":2}",
        "123456789012345678901234567890",
        "null",
    ])
    func agreesWithFoundation(text: String) throws {
        let parsed = try #require(JSONValue(json: Array(text.utf8)))
        if text.contains("dup") {
            #expect(parsed == .object(["dup": .number(2)]), "the last of duplicate names wins")
        } else {
            #expect(parsed == foundation(text))
        }
    }

    @Test("text that is not JSON is refused with the offset where it goes wrong", arguments: [
        ("", 0),
        ("{", 1),
        ("{\"a\" 1}", 5),
        ("{\"a\":1,}", 7),  // Foundation accepts trailing commas; RFC 8259 does not
        ("[1 2]", 3),
        ("[1,]", 3),
        ("01", 1),
        ("-", 0),
        ("1.", 2),
        ("1e", 2),
        ("tru", 0),
        ("nul", 0),
        ("\"abc", 0),
        ("\"a\\x\"", 2),
        ("\"a\u{01}\"", 2),
        ("\"\\ud83d\\u0041\"", 1),
        ("\"\\udc00\"", 1),
        ("\"\\u12g4\"", 1),
        ("1e999", 0),
        ("{} x", 3),
        ("<html>", 0),
    ])
    func refusals(text: String, offset: Int) {
        #expect(JSONValue(json: Array(text.utf8)) == nil, "\(text)")
        #expect(throws: JSONParser.Failure.self) { try JSONParser.document(Array(text.utf8)) }
        do {
            _ = try JSONParser.document(Array(text.utf8))
        } catch {
            #expect(error.offset == offset, "\(text): \(error.message)")
        }
    }

    @Test("nesting is capped, so a hostile body cannot exhaust the stack")
    func depth() throws {
        let deepest = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect(JSONValue(json: Array(deepest.utf8)) != nil)
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(JSONValue(json: Array(tooDeep.utf8)) == nil)
        let objects = String(repeating: "{\"a\":", count: JSONParser.maxDepth + 1) + "1" + String(repeating: "}", count: JSONParser.maxDepth + 1)
        #expect(JSONValue(json: Array(objects.utf8)) == nil)
    }

    @Test("a prefix parse stops right after the value")
    func prefix() throws {
        let bytes = Array("\"é\" && status == 200".utf8)
        let (value, end) = try JSONParser.prefix(bytes, from: 0)
        #expect(value == .string("é"))
        #expect(end == 4)
    }
}
