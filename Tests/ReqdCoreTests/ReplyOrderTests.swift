import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("A registration's reply comes before its job's events")
struct ReplyOrderTests {
    private static func submit(_ url: String, follow: Bool) -> SubmitSpec {
        SubmitSpec(
            request: RequestSpec(method: "POST", url: url, body: "{}", maxAttempts: 3, backoffMinMs: 100, backoffMaxMs: 100),
            dedupeWindowMs: 0, follow: follow)
    }

    @Test("a followed submit to a target already known unreachable is held as it starts: its reply, then its held event")
    func heldAtStart() throws {
        var h = Harness()
        let url = "http://10.77.0.1:8080/orders"
        let first = h.request(.submit(Self.submit(url, follow: false)))
        let send = try #require(first.sends.first)
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, .unreachable("could not connect: Network is unreachable")))

        let effects = h.request(.submit(Self.submit(url, follow: true)))
        let reply = effects.firstIndex { if case .reply = $0 { true } else { false } }
        let held = effects.firstIndex { if case .deliver(let event, _) = $0 { event.type == .held } else { false } }
        #expect(reply != nil)
        #expect(held != nil, "the second job is held as soon as it starts: \(effects)")
        if let reply, let held { #expect(reply < held, "the follower would read held before its reply") }
    }

    @Test("a registration into a watched scope: its reply comes before the registered event the scope's watchers get, durable or not")
    func replyBeforeScopeEvent() throws {
        for ephemeral in [true, false] {
            var h = Harness()
            _ = h.request(.watch(JobSelector(scope: "s")))
            let effects = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 60_000, scope: "s", ephemeral: ephemeral)))
            let reply = effects.firstIndex { if case .reply = $0 { true } else { false } }
            let registered = effects.firstIndex { if case .deliver(let event, _) = $0 { event.type == .registered } else { false } }
            #expect(reply != nil && registered != nil, "\(effects)")
            if let reply, let registered { #expect(reply < registered, "ephemeral \(ephemeral)") }
        }
    }
}
