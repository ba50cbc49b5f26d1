import Foundation
import ReqdProtocol
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
}
