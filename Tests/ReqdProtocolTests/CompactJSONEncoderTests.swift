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

/// Whether the streaming writer writes the value itself, without handing it to Foundation.
private func streams<T: Encodable>(_ value: T) throws -> Bool {
    let writer = JSONByteWriter()
    try writer.write(value)
    return !writer.unsupported
}

/// A job with every optional part set, as `status --json` prints it.
private func fullJob(at: WallTime) -> JobInfo {
    var job = JobInfo(
        id: "rq_x", kind: .request, state: .succeeded, owner: 1000, key: "k", scope: "s", durable: true, createdAt: at,
        endedAt: at, reason: .superseded, replacedBy: "rq_y", deadline: at, remainingMs: 0, tickMs: 1000, lateByMs: 0.5)
    job.onExpire = OnExpireInfo(method: "POST", url: "https://x/y", headerNames: ["A"], job: "rq_z")
    job.poll = PollInfo(
        url: "https://x/y", method: "GET", headerNames: [], everyMs: 100, until: "/a == 1", progressPointer: "/p",
        timeoutMs: 5, deadline: at, maxPolls: 3, maxFailures: 5, polls: 2, failures: 0, progress: 42.5, lastStatus: 200,
        lastError: nil, inFlight: false, nextPollAt: at)
    job.request = RequestInfo(
        url: "https://x/y", method: "POST", headerNames: ["A"], maxAttempts: 3, backoffMinMs: 100, backoffMaxMs: 200,
        attempts: 1, lastStatus: 503, lastError: "e", inFlight: false, nextAttemptAt: at, parent: "cd_x")
    job.group = GroupInfo(
        concurrency: 4, timeoutMs: nil, total: 1, done: 1, failures: 1,
        members: [
            MemberInfo(
                index: 0, method: "GET", url: "https://x/y", state: .failed, attempts: 1, status: 500, body: "b",
                truncated: false, error: "e")
        ],
        errors: [MemberError(index: 0, state: .failed, error: "e")], onCompleteJob: nil)
    job.boundToConnection = true
    job.result = HTTPResult(status: 200, headers: ["A: b"], body: "{}", truncated: false)
    job.error = "e"
    return job
}

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

    @Test("what the client sends and prints with --json is streamed, and comes out as Foundation writes it")
    func clientValues() throws {
        let at = WallTime(nanosecondsSinceEpoch: 1_800_000_000_123_000_000)
        let job = fullJob(at: at)
        let printed: [any Encodable] = [
            job, JobResult(job: job), JobListResult(jobs: [job, job], next: "1:cd_x"),
            RegisterResult(job: job, replaced: "rq_w", deduplicated: true), CancelResult(cancelled: ["rq_x", "cd_y"]),
            DaemonSummary(
                version: "0.1.0", protocolVersion: 1, pid: 12, startedAt: at, uptimeMs: 5, jobs: ["request": ["active": 2]],
                connections: 3, network: NetworkSummary(state: .offline, offlineSince: at, heldJobs: 2, unreachableTargets: 1)),
        ]
        for value in printed + (RequestDecodingTests.everyOperation as [any Encodable]) {
            #expect(try streams(value), "\(type(of: value))")
            try expectSameJSON(value)
        }
    }

    @Test("slashes are written as they are")
    func slashes() throws {
        #expect(try CompactJSONEncoder().encode(["url": "https://x/y"]) == Array(#"{"url":"https://x/y"}"#.utf8))
    }

    @Test("a value that encodes nothing is an empty object; a nested container falls back to Foundation")
    func edges() throws {
        #expect(try CompactJSONEncoder().encode(Empty()) == Array("{}".utf8))
        try expectSameJSON(Nested())
        #expect(try !streams(Nested()))
        try expectSameJSON(["a": [String?.none, "b"]])
    }
}
