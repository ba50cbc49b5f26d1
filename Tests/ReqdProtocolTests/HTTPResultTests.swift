import Foundation
@testable import ReqdProtocol
import Testing

@Suite("An ended job's HTTP result")
struct HTTPResultTests {
    @Test("headers read back as given, none apart from empty, and code to the same JSON", arguments: [
        nil, [], ["Server: nginx"], ["Server: nginx", "Content-Type: application/json", "X-Empty: ", "Set-Cookie: a=b; Path=/"],
    ] as [[String]?])
    func headers(_ headers: [String]?) throws {
        let result = HTTPResult(status: 200, headers: headers, body: "{}", truncated: false)
        #expect(result.headers == headers)
        let encoded = try JSONEncoder().encode(result)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["headers"] as? [String] == headers)
        #expect((object["headers"] == nil) == (headers == nil))
        #expect(try JSONDecoder().decode(HTTPResult.self, from: encoded) == result)
        var changed = result
        changed.headers = ["A: b"]
        #expect(changed.headers == ["A: b"] && changed != result)
    }

    @Test("an attempt with the answer's headers keeps them in the answer's storage, and reads them back the same; other headers stay its own")
    func sharedHeaders() throws {
        let lines = ["Server: nginx", "Content-Type: application/json", "ETag: \"5f3a-30\""]
        let result = HTTPResult(status: 200, headers: lines, body: "{}", truncated: false)
        var attempt = AttemptInfo(number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, status: 200, headers: lines)
        let before = try #require(attempt.headerLines)
        #expect(!before.sharesStorage(with: try #require(result.headerLines)))
        attempt.shareHeaders(with: result)
        #expect(try #require(attempt.headerLines).sharesStorage(with: try #require(result.headerLines)))
        #expect(attempt.headers == lines && attempt == AttemptInfo(number: 1, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, status: 200, headers: lines))
        var other = AttemptInfo(number: 2, startedAt: WallTime(nanosecondsSinceEpoch: 1), durationMs: 1, status: 503, headers: ["Server: nginx"])
        other.shareHeaders(with: result)
        #expect(other.headers == ["Server: nginx"])
        #expect(!(try #require(other.headerLines)).sharesStorage(with: try #require(result.headerLines)))
    }
}
