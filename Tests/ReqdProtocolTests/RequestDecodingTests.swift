import Foundation
import Testing
@testable import ReqdProtocol

@Suite("Request decoding")
struct RequestDecodingTests {
    let decoder = RequestDecoder()

    private func decode(_ text: String) -> Result<Request, RequestDecodingFailure> {
        decoder.decode(Array(text.utf8))
    }

    /// One request of every operation, as the client sends them.
    static let everyOperation: [Request] = [
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
        Request(id: .number(80), body: .delete(DeleteRequest(job: "rq_x"))),
        Request(id: .number(81), body: .metrics(MetricsRequest(soonest: 5))),
        Request(id: .number(82), body: .metrics(MetricsRequest())),
        Request(
            id: .number(83),
            body: .registerSchedule(
                ScheduleSpec(
                    calendar: "Mon..Fri 09:00", tz: "Europe/Berlin", request: RequestSpec(method: "POST", url: "https://hooks.example/x", body: "{}"),
                    overlap: .queue, catchUp: ScheduleCatchUp.none, randomizedDelayMs: 30_000, fixedDelay: true, key: "standup", scope: "s",
                    ephemeral: false, bindConnection: false, follow: true))),
        Request(id: .number(84), body: .registerSchedule(ScheduleSpec(cron: "@daily"))),
        Request(id: .number(85), body: .registerSchedule(ScheduleSpec(everyMs: 300_000))),
        Request(id: .number(86), body: .pause(JobSelector(key: "standup"))),
        Request(id: .number(87), body: .resume(JobSelector(job: "sc_0123456789"))),
        Request(
            id: .number(9),
            body: .registerPoll(
                PollSpec(
                    url: "https://x/status?id=1", headers: ["Authorization: Bearer t"], everyMs: 500, until: #"/state == "done""#,
                    progress: "/progress", timeoutMs: 60_000, key: "p", bindConnection: true))),
        Request(
            id: .number(10),
            body: .submit(
                SubmitSpec(
                    request: RequestSpec(method: "POST", url: "https://x/orders", body: #"{"sku":7}"#, retryOn: ["5xx", "404"]),
                    dedupeWindowMs: 0, dedupeHeaders: ["X-Tenant"], key: "o", onFailure: RequestSpec(url: "https://x/failed")))),
        Request(
            id: .number(11),
            body: .registerGroup(
                GroupSpec(
                    members: [RequestSpec(url: "https://x/a"), RequestSpec(method: "PUT", url: "https://x/b", maxAttempts: 2)],
                    concurrency: 2, timeoutMs: 30_000, onComplete: RequestSpec(url: "https://x/done"), follow: true))),
        Request(id: .number(12), body: .retry(RetryRequest(job: "rq_x"))),
    ]

    @Test("every request, as the client writes it, reads back the same")
    func roundTrip() throws {
        #expect(Set(Self.everyOperation.map(\.body.operation)) == Set(Operation.allCases))
        for request in Self.everyOperation {
            let line = try CompactJSONEncoder().encode(request)
            #expect(try decoder.decode(line).get() == request, "\(String(decoding: line, as: UTF8.self))")
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

    @Test("a key that a request does not take is refused in every nested request object, naming where it is; submit's own fields beside the request's are not")
    func nestedUnknownKeys() {
        let lines: [(line: String, where: String)] = [
            (#"{"id":1,"op":"register-countdown","duration_ms":5,"on_expire":{"url":"http://x/","max_attemps":3}}"#, "'on_expire'"),
            (#"{"id":1,"op":"submit","url":"http://x/","on_failure":{"url":"http://x/f","bodyy":"{}"}}"#, "'on_failure'"),
            (#"{"id":1,"op":"register-group","members":[{"url":"http://x/a"},{"url":"http://x/b","retry":2}]}"#, "'members.Index 1'"),
            (#"{"id":1,"op":"register-group","members":[{"url":"http://x/a"}],"on_complete":{"url":"http://x/c","key":"k"}}"#, "'on_complete'"),
            (#"{"id":1,"op":"register-schedule","every_ms":1000,"request":{"url":"http://x/","headres":[]}}"#, "'request'"),
        ]
        for (line, place) in lines {
            for result in [decode(line), FoundationRequestDecoder().decode(Array(line.utf8))] {
                guard case .failure(let failure) = result else {
                    Issue.record("accepted: \(line)")
                    continue
                }
                #expect(failure.id == .number(1))
                #expect(failure.error.code == .unknownField, "\(failure.error)")
                #expect(failure.error.message.hasPrefix("\(place) takes no field '"), "\(failure.error.message)")
            }
        }
        let submit = #"{"id":1,"op":"submit","url":"http://x/","dedupe_window_ms":0,"key":"k","on_success":{"url":"http://x/s","retry_on":["5xx"]}}"#
        #expect((try? decode(submit).get()) != nil, "a submit's own fields sit beside its request's")
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

@Suite("Operation.index")
struct OperationIndexTests {
    @Test("each operation's index is its place in allCases, which the decoder's tables are built in")
    func indexMatchesAllCases() {
        for (offset, operation) in Operation.allCases.enumerated() { #expect(operation.index == offset, "\(operation)") }
    }
}
