import Foundation
import Testing
@testable import ReqdCore

@Suite("Poll conditions")
struct PollConditionTests {
    private func body(_ json: String) -> JSONValue {
        JSONValue(json: Array(json.utf8))!
    }

    @Test("conditions hold or not against a status and a JSON body", arguments: [
        ("/state == \"done\"", 200, "{\"state\":\"done\"}", true),
        ("/state == \"done\"", 200, "{\"state\":\"running\"}", false),
        ("/state != \"done\"", 200, "{\"state\":\"running\"}", true),
        ("/progress >= 100", 200, "{\"progress\":100}", true),
        ("/progress >= 100", 200, "{\"progress\":99.5}", false),
        ("/progress < 50", 200, "{\"progress\":12}", true),
        ("/progress > \"a\"", 200, "{\"progress\":12}", false),
        ("/name <= \"m\"", 200, "{\"name\":\"alpha\"}", true),
        ("/items/1/ok == true", 200, "{\"items\":[{\"ok\":false},{\"ok\":true}]}", true),
        ("/items/01/ok == true", 200, "{\"items\":[{\"ok\":false},{\"ok\":true}]}", false),
        ("/a~1b == 1", 200, "{\"a/b\":1}", true),
        ("/m~0n == null", 200, "{\"m~n\":null}", true),
        ("/missing != 1", 200, "{}", false),
        ("/count == 3", 200, "{\"count\":3.0}", true),
        ("status == 200", 200, "not json at all", true),
        ("status == 200", 204, "{}", false),
        ("status in 200..299", 204, "{}", true),
        ("status in 200..299", 302, "{}", false),
        ("status in 200..299 && /state == \"done\"", 200, "{\"state\":\"done\"}", true),
        ("status in 200..299 && /state == \"done\"", 500, "{\"state\":\"done\"}", false),
        ("/s == \"a\\\"b\\u00e9\"", 200, "{\"s\":\"a\\\"bé\"}", true),
        ("/tags == [\"a\", 2]", 200, "{\"tags\":[\"a\",2]}", true),
        ("/é == \"ü\" && status == 200", 200, "{\"é\":\"ü\"}", true),
    ])
    func evaluation(condition: String, status: Int, json: String, expected: Bool) throws {
        let parsed = try PollCondition(parsing: condition)
        let document = JSONValue(json: Array(json.utf8))
        #expect(parsed.holds(status: status, body: document) == expected, "\(condition) on \(status) \(json)")
    }

    @Test("only clauses on the body need JSON")
    func needsJSON() throws {
        #expect(try PollCondition(parsing: "status == 200").needsJSON == false)
        #expect(try PollCondition(parsing: "status == 200 && /a == 1").needsJSON == true)
    }

    @Test("a bad condition is refused with the column where it goes wrong", arguments: [
        ("", 1),
        ("state == \"done\"", 1),
        ("/state = \"done\"", 8),
        ("/state == done", 11),
        ("/state == \"done", 11),
        ("/state == \"done\" || /x == 1", 18),
        ("/state == \"done\" &&", 20),
        ("status == ok", 11),
        ("status in 200-299", 14),
        ("status in 299..200", 11),
        ("/a~2 == 1", 1),
        ("/p >= 1e999", 7),
        ("/é == \"x", 7),
        ("/s == \"a\\qb\"", 9),
        ("/s == 01", 8),
        ("/é == \"é\" && /b == x", 20),
    ])
    func syntaxErrors(condition: String, column: Int) {
        #expect {
            _ = try PollCondition(parsing: condition)
        } throws: { error in
            guard let error = error as? SchedulerError else { return false }
            return error.code == .badCondition && error.column == column
        }
    }

    @Test("a long condition reads every clause, its literals in place; a registration takes up to 4,096 bytes, a stored one any length")
    func longCondition() throws {
        let text = String(repeating: "/é == \"é\" && ", count: 250) + "status == 200"
        #expect(text.utf8.count <= PollCondition.maxBytes)
        let condition = try PollCondition(parsing: text)
        #expect(condition.clauses.count == 251)
        #expect(condition.clauses.first == .value(JSONPointer("/é")!, .equal, .string("é")))
        let longer = String(repeating: "/a == 1 && ", count: 400) + "/a == 1"
        #expect(try PollCondition(parsing: longer).clauses.count == 401, "a poll stored before the limit still reads")
        var h = Harness()
        let refused = h.request(.registerPoll(pollSpec(until: longer)))
        #expect(refused.errorCodes == [.badCondition])
        #expect(h.request(.registerPoll(pollSpec(until: text))).errorCodes.isEmpty)
    }

    @Test("JSON Pointers follow RFC 6901")
    func pointers() throws {
        let document = body("{\"\":0,\"a\":{\"b\":[10,20]},\" \":7,\"~/\":3}")
        #expect(JSONPointer("")?.resolve(in: document) == document)
        #expect(JSONPointer("/a/b/1")?.resolve(in: document) == .number(20))
        #expect(JSONPointer("/a/b/2")?.resolve(in: document) == nil)
        #expect(JSONPointer("/a/b/-1")?.resolve(in: document) == nil)
        for index in ["+1", "-0", "01", " 1", "1 ", ""] {
            #expect(JSONPointer("/a/b/\(index)")?.resolve(in: document) == nil, "array index '\(index)'")
        }
        #expect(JSONPointer("/~0~1")?.resolve(in: document) == .number(3))
        #expect(JSONPointer("/")?.resolve(in: document) == .number(0))
        #expect(JSONPointer("a") == nil)
        #expect(JSONPointer("/~0~1")?.description == "/~0~1")
    }
}
