import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

@Suite("Deadlines first: what other clients ask for never makes a due deadline wait")
struct DeadlinesFirstTests {
    /// 10,000 ephemeral registrations from connection 2, as one turn's events.
    private static func registrations(_ count: Int) -> [SchedulerEvent] {
        (0..<count).map { index in
            .request(
                ConnectionID(2),
                Request(
                    id: .number(Int64(10_000 + index)),
                    body: .registerCountdown(CountdownSpec(key: "n\(index)", durationMs: 60_000, ephemeral: true))))
        }
    }

    @Test("a deadline due when a turn starts fires before the turn's 10,000 requests, and its effects come first")
    func dueDeadlineBeforeRequests() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "mine", seconds: 10, follow: true)
        h.advance(10 * second + 3 * ms)
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: Self.registrations(10_000), at: h.now, into: &effects)

        let expired = effects.firstIndex { effect in
            if case .deliver(let event, _) = effect { return event.type == .expired && event.job == id.rawValue }
            return false
        }
        let firstReply = effects.firstIndex { if case .reply = $0 { return true } else { return false } }
        guard let expired, let firstReply else {
            Issue.record("no expired event or no reply: \(effects.count) effects")
            return
        }
        #expect(expired < firstReply)
        #expect(effects.replies.count == 10_000)
        #expect(effects.replies.allSatisfy { if case .success = $0.result { true } else { false } })
        // Late by the time the turn started after the deadline, not by 10,000 requests' worth.
        #expect(h.scheduler.job(id)?.countdown?.lateBy == 3 * ms)
        #expect(h.scheduler.job(id)?.state == .expired)
    }

    @Test("a burst larger than a timer turn's share: a turn with a request fires the rest of it first, so a cancel finds its countdown expired")
    func burstBeforeARequest() {
        var h = Harness()
        let share = h.scheduler.configuration.timerEntriesPerTurn
        var last: JobID?
        for index in 0..<(share * 2) { last = h.countdown(key: "b\(index)", seconds: 1, tickMs: 60_000).id }
        guard let last, let due = h.armed else { Issue.record("nothing armed"); return }
        h.advance(due.nanoseconds(since: h.now.instant))
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: [.timerFired], at: h.now, into: &effects)
        #expect(effects.events(.expired).count == share, "a turn of the timer alone fires its share")
        effects = []
        let cancel = SchedulerEvent.request(ConnectionID(1), Request(id: .number(99), body: .cancel(JobSelector(key: "b\(share * 2 - 1)"))))
        h.scheduler.handle(turn: [cancel], at: h.now, into: &effects)
        #expect(effects.events(.expired).count == share, "the rest of the burst fired before the request")
        #expect(h.scheduler.job(last)?.state == .expired, "the cancel came after its deadline and found it expired")
    }

    @Test("with nothing due, a turn is its events one after another")
    func nothingDue() {
        var one = Harness()
        var turn = Harness()
        _ = one.countdown(key: "mine", seconds: 10)
        _ = turn.countdown(key: "mine", seconds: 10)
        var separately: [SchedulerEffect] = []
        for event in Self.registrations(3) { separately += one.scheduler.handle(event, at: one.now) }
        var together: [SchedulerEffect] = []
        turn.scheduler.handle(turn: Self.registrations(3), at: turn.now, into: &together)
        #expect(together.replies.map(\.id) == separately.replies.map(\.id))
        #expect(together.count == separately.count)
    }

    @Test("a timer that fires in the same turn after its deadline was handled first fires nothing twice")
    func timerFiredAfterDeadlinesFirst() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "mine", seconds: 1, follow: true)
        h.advance(2 * second)
        var effects: [SchedulerEffect] = []
        h.scheduler.handle(turn: [.timerFired], at: h.now, into: &effects)
        #expect(effects.events(.expired).map(\.job) == [id.rawValue])
    }
}
