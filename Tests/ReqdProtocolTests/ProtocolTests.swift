import Foundation
import Testing
@testable import ReqdProtocol

@Suite("Framing")
struct FramingTests {
    @Test("lines split across reads are joined; \\r\\n and empty lines are handled")
    func splitsLines() {
        var framer = LineFramer(maxLineBytes: 100)
        var frames: [LineFramer.Frame] = []
        framer.append(Array("{\"a\":1}\n{\"b\"".utf8), into: &frames)
        framer.append(Array(":2}\r\n\n{\"c\":3}\n".utf8), into: &frames)
        #expect(frames == [.line(Array("{\"a\":1}".utf8)), .line(Array("{\"b\":2}".utf8)), .line(Array("{\"c\":3}".utf8))])
        #expect(framer.pendingBytes == 0)
    }

    @Test("a line over the limit is reported once, dropped without buffering, and the next line still works")
    func oversized() {
        var framer = LineFramer(maxLineBytes: 10)
        var frames: [LineFramer.Frame] = []
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 8), into: &frames)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 8), into: &frames)
        #expect(frames == [.oversized])
        #expect(framer.pendingBytes == 0)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 1000), into: &frames)
        framer.append(Array("xx\nok\n".utf8), into: &frames)
        #expect(frames == [.oversized, .line(Array("ok".utf8))])
        framer.append(Array("01234567890123\n".utf8), into: &frames)
        #expect(frames.last == .oversized)
    }
}

@Suite("Times and durations")
struct TimeTests {
    @Test("RFC 3339 parses offsets and fractions, and prints UTC with milliseconds")
    func rfc3339() throws {
        let plain = try #require(WallTime(rfc3339: "2026-11-22T10:00:00Z"))
        #expect(plain.nanosecondsSinceEpoch == 1_795_341_600 * 1_000_000_000)
        let offset = try #require(WallTime(rfc3339: "2026-11-22T11:00:00.5+01:00"))
        #expect(offset.nanosecondsSinceEpoch == plain.nanosecondsSinceEpoch + 500_000_000)
        #expect(offset.rfc3339 == "2026-11-22T10:00:00.500Z")
        for bad in ["yesterday", "2026-13-01T00:00:00Z", "2026-11-22 10:00", "2026-11-22T10:00:00", "2026-11-22T10:00:00Zjunk"] {
            #expect(WallTime(rfc3339: bad) == nil, "\(bad)")
        }
    }

    @Test("durations read as 500ms, 3s, 15m, 1h30m; nonsense is refused", arguments: [
        ("500ms", Int64(500_000_000)), ("3s", 3_000_000_000), ("15m", 900_000_000_000), ("1h30m", 5_400_000_000_000),
        ("2d", 172_800_000_000_000), ("1.5", 1_500_000_000), ("250us", 250_000),
    ])
    func durations(text: String, nanos: Int64) {
        #expect(DurationText.parseNanoseconds(text) == nanos)
    }

    @Test("bad durations are refused")
    func badDurations() {
        for bad in ["", "soon", "3x", "s", "1e400", "5 parsecs"] {
            #expect(DurationText.parseNanoseconds(bad) == nil, "\(bad)")
        }
        #expect(DurationText.format(nanoseconds: 5_400_000_000_000) == "1h30m")
        #expect(DurationText.format(nanoseconds: 2_500_000_000) == "2.5s")
    }
}

@Suite("Request decoding")
struct RequestDecodingTests {
    let decoder = RequestDecoder()

    private func decode(_ text: String) -> Result<Request, RequestDecodingFailure> {
        decoder.decode(Array(text.utf8))
    }

    @Test("every request survives an encode/decode round trip")
    func roundTrip() throws {
        let requests: [Request] = [
            Request(id: .number(1), body: .hello(HelloRequest(client: "t"))),
            Request(
                id: .string("a"),
                body: .registerCountdown(
                    CountdownSpec(key: "k", durationMs: 10, tickMs: 5, scope: "s", ephemeral: true, follow: true))),
            Request(id: .number(2), body: .registerCountdown(CountdownSpec(key: "k", until: WallTime(nanosecondsSinceEpoch: 1_000_000)))),
            Request(id: .number(3), body: .cancel(JobSelector(scope: "s"))),
            Request(id: .number(4), body: .status(StatusRequest(job: "cd_x"))),
            Request(id: .number(5), body: .list(ListRequest(state: .active, kind: .countdown, limit: 3))),
            Request(id: .number(6), body: .watch(JobSelector(job: "cd_x"))),
            Request(id: .number(7), body: .unwatch(UnwatchRequest(watch: .number(6)))),
            Request(id: .number(8), body: .wait(WaitRequest(job: "cd_x"))),
        ]
        for request in requests {
            let line = try JSONEncoder().encode(request)
            #expect(try decode(String(decoding: line, as: UTF8.self)).get() == request)
        }
    }

    @Test("failures keep the id when it could be read, and carry a stable code")
    func failures() {
        guard case .failure(let unknown) = decode("{\"id\":\"x\",\"op\":\"nope\"}") else { return }
        #expect(unknown.id == .string("x"))
        #expect(unknown.error.code == .unknownOperation)
        guard case .failure(let notJSON) = decode("{nope") else { return }
        #expect(notJSON.id == nil)
        #expect(notJSON.error.code == .badJSON)
        guard case .failure(let extra) = decode("{\"id\":1,\"op\":\"status\",\"jobb\":\"x\"}") else { return }
        #expect(extra.error.code == .unknownField)
        #expect(extra.error.message.contains("jobb"))
    }

    @Test("a reply encodes as ok/result or ok/error")
    func replyShape() throws {
        let failure = Response(id: nil, outcome: .failure(WireError(.badJSON, "nope")))
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(failure)) as? [String: Any]
        #expect(object?["ok"] as? Bool == false)
        #expect(object?["id"] is NSNull)
        #expect((object?["error"] as? [String: Any])?["code"] as? String == "bad_json")
    }
}
