import ReqdProtocol
import Testing
@testable import ReqdCore

/// A request job to an unreachable address: sent once, no dedupe, not stored.
private let submit = RequestBody.submit(
    SubmitSpec(
        request: RequestSpec(method: "POST", url: "http://10.77.0.1:8080/orders", body: "{}", maxAttempts: 3),
        dedupeWindowMs: 0, ephemeral: true))

/// Whether the harness recorded `issue` for an impossible effect, in these words.
private func recorded(_ issue: Issue, _ words: String) -> Bool {
    issue.comments.contains { $0.rawValue.contains(words) }
}

/// The harness plays the executor and the sockets. The first tests make the scheduler's view and
/// the harness's part ways (an event the harness did not see), so the effects that follow are ones
/// no executor or socket could carry out: they show each rule can fire. The last is a case the
/// scheduler produces on its own, kept as a known issue until it is decided.
@Suite("Harness rejects impossible effects")
struct HarnessTests {
    @Test("a second send of a request still on the wire is an issue")
    func secondSend() throws {
        var h = Harness()
        let send = try #require(h.request(submit).sends.first)
        // The attempt's end reaches the scheduler, not the harness: for it the attempt is still out.
        _ = h.scheduler.handle(.httpFinished(send.job, attempt: send.attempt, .unreachable("no route to host")), at: h.now)
        withKnownIssue { _ = h.handle(.networkChanged) } matching: { recorded($0, "already on the wire") }
    }

    @Test("an abort of a request that is not on the wire is an issue")
    func abortNotOnWire() throws {
        var h = Harness()
        // Sent while the harness looked away.
        let effects = h.scheduler.handle(.request(ConnectionID(1), Request(id: .number(99), body: submit)), at: h.now)
        let send = try #require(effects.sends.first)
        withKnownIssue {
            _ = h.request(.cancel(JobSelector(job: send.job.rawValue)))
        } matching: { recorded($0, "not on the wire") }
    }

    @Test("a reply or an event to a connection the harness never opened is an issue")
    func unknownConnection() {
        var h = Harness()
        _ = h.scheduler.handle(.connectionOpened(ConnectionID(7), Peer(uid: 1000, pid: 70)), at: h.now)
        withKnownIssue {
            _ = h.countdown(key: "k", seconds: 5, follow: true, ephemeral: true, connection: 7)
        } matching: { recorded($0, "replied to request 1 on conn-7") }
        withKnownIssue { _ = h.fireAtArmedDeadline() } matching: { recorded($0, "delivered tick") }
    }

    /// The job rightly starts (it is on disk, and a restart would restore it), but nobody is left
    /// to hear the reply.
    @Test("a durable registration whose connection closed before its commit starts, with no reply")
    func closedBeforeCommit() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 5_000)))
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        let token = try #require(h.pendingBarriers.first)
        let committed = h.handle(.commitCompleted(token, failure: nil))
        #expect(committed.replies.isEmpty, "no reply goes to a connection that closed before the commit")
        #expect(committed.events(.registered).count == 1)
        #expect(h.scheduler.activeJobCount == 1)
    }
}
