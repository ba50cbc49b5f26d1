import Foundation
import Testing
@testable import ReqdProtocol

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
