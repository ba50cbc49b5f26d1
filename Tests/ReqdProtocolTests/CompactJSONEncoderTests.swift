import Foundation
import Testing
@testable import ReqdProtocol

/// The parsed form of JSON text, for comparing two encoders' output regardless of key order.
private func parsed(_ bytes: [UInt8]) throws -> NSObject {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? NSObject)
}

/// Encodes with both encoders and expects the same JSON.
private func expectSameJSON<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let compact = try CompactJSONEncoder().encode(value)
    let foundation = Array(try JSONEncoder().encode(value))
    #expect(try parsed(compact) == parsed(foundation), "\(String(decoding: compact, as: UTF8.self))", sourceLocation: sourceLocation)
}

/// Uses a nested container, which the streaming encoder hands to Foundation.
private struct Nested: Encodable {
    enum Keys: String, CodingKey { case outer, inner }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var inner = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
        try inner.encode(7, forKey: .inner)
    }
}

private struct Empty: Encodable {}

@Suite("The streaming JSON encoder")
struct CompactJSONEncoderTests {
    @Test("replies, events and flattened specs come out as Foundation's JSONEncoder writes them")
    func sameAsFoundation() throws {
        let at = WallTime(nanosecondsSinceEpoch: 1_800_000_000_123_000_000)
        try expectSameJSON(
            Response(id: .number(7), outcome: .success(.hello(HelloResult(protocolVersion: 1, server: "reqd", version: "0.1.0", uid: 1000)))))
        try expectSameJSON(Response(id: nil, outcome: .failure(WireError(.badField, "bad \"field\"\n\t\u{1}é/✓", column: 3))))
        try expectSameJSON(Response(id: .string("a\\b"), outcome: .success(.summary(
            DaemonSummary(version: "0.1.0", protocolVersion: 1, pid: 12, startedAt: at, uptimeMs: 5,
                          jobs: ["request": ["active": 2, "dead": 0]], connections: 3,
                          network: NetworkSummary(state: .offline, offlineSince: at, heldJobs: 2, unreachableTargets: 1))))))
        var event = JobEvent(type: .expired, job: "cd_x", kind: .countdown, key: "k", scope: nil, owner: 0, at: at, remainingMs: -4, lateByMs: 0.125)
        event.error = "line\r\nbreak"
        try expectSameJSON(EventMessage(watch: .number(3), event: event))
        let spec = SubmitSpec(
            request: RequestSpec(method: "POST", url: "http://h/x?q=1", headers: ["A: b"], body: "{}", maxAttempts: 3, backoffMinMs: 100, backoffMaxMs: 200, retryOn: ["5xx"]),
            dedupeWindowMs: 0, key: "search", follow: true)
        try expectSameJSON(spec)
        let decoded = try JSONDecoder().decode(SubmitSpec.self, from: Data(try CompactJSONEncoder().encode(spec)))
        #expect(decoded == spec)
    }

    @Test("numbers at their limits, fractions and bytes")
    func numbers() throws {
        try expectSameJSON([Int64.min, Int64.max, 0, -1])
        try expectSameJSON([UInt64.max])
        try expectSameJSON([0.1, -0.5, 1e300, 2.5e-8, 100.0, -0.0])
        try expectSameJSON([UInt8](0...255))
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode([Double.nan]) }
    }

    @Test("a value that encodes nothing is an empty object; a nested container falls back to Foundation")
    func edges() throws {
        #expect(try CompactJSONEncoder().encode(Empty()) == Array("{}".utf8))
        try expectSameJSON(Nested())
        try expectSameJSON(["a": [String?.none, "b"]])
    }
}
