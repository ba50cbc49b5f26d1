import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

@Suite("Countdown semantics on the injected clock")
struct CountdownTests {
    @Test("registering arms the timer at the deadline when nobody watches")
    func registerArmsAtDeadline() {
        var h = Harness()
        let start = h.now.instant
        let (_, reply, effects) = h.countdown(key: "order-42", seconds: 10)
        #expect(reply.job.remainingMs == 10_000)
        #expect(reply.job.state == .active)
        #expect(reply.replaced == nil)
        #expect(effects.arms == [start.advanced(by: 10 * second)])
    }

    @Test("the same (owner, key) replaces the running countdown and names it; never two run")
    func uniqueKeyReplaces() {
        var h = Harness()
        let first = h.countdown(key: "k", seconds: 10, follow: true)
        h.advance(2 * second)
        let second = h.countdown(key: "k", seconds: 5)
        #expect(second.reply.replaced == first.id.rawValue)
        let cancelled = second.effects.events(.cancelled)
        #expect(cancelled.map(\.job) == [first.id.rawValue])
        #expect(cancelled.first?.reason == .superseded)
        #expect(cancelled.first?.replacedBy == second.id.rawValue)
        #expect(h.scheduler.job(first.id)?.state == .cancelled)
        #expect(h.scheduler.activeJobCount == 1)
        // Only the new countdown expires; the old one never ticks or expires again.
        var all: [SchedulerEffect] = []
        while h.armed != nil { all += h.fireAtArmedDeadline() }
        #expect(all.events(.expired).map(\.job) == [second.id.rawValue])
        #expect(all.events.allSatisfy { $0.event.job != first.id.rawValue })
    }

    @Test("a countdown without a key is known by its id alone, and replaces nothing")
    func keyless() {
        var h = Harness()
        let first = h.countdown(key: nil, seconds: 10)
        let second = h.countdown(key: nil, seconds: 10)
        #expect(first.reply.job.key == nil)
        #expect(second.reply.replaced == nil)
        #expect(h.scheduler.activeJobCount == 2)
    }

    @Test("another owner's identical key is a separate countdown")
    func keysArePerOwner() {
        var h = Harness()
        let mine = h.countdown(key: "k", seconds: 10, connection: 1)
        let theirs = h.countdown(key: "k", seconds: 10, connection: 2)
        #expect(theirs.reply.replaced == nil)
        #expect(h.scheduler.job(mine.id)?.state == .active)
        #expect(h.scheduler.activeJobCount == 2)
    }

    @Test("remaining time is deadline minus now, at any moment")
    func remainingIsDeadlineMinusNow() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 10)
        for step in [Int64(1), 250, 1_337, 4_000] {
            h.advance(step * ms)
            let elapsed = h.now.instant.nanoseconds(since: h.scheduler.job(id)!.countdown!.deadline.advanced(by: -10 * second))
            let effects = h.request(.status(StatusRequest(job: id.rawValue)))
            guard case .success(.job(let result)) = effects.replies.first?.result else {
                Issue.record("no status")
                return
            }
            #expect(result.job.remainingMs == (10 * second - elapsed) / ms)
        }
    }

    @Test("a watched countdown ticks exactly when a whole number of ticks is left")
    func ticksOnWholeMultiples() {
        var h = Harness()
        let start = h.now.instant
        let (_, _, effects) = h.countdown(key: "k", seconds: 10, follow: true)
        #expect(effects.arms == [start.advanced(by: 1 * second)])
        var ticks: [(at: Int64, remaining: Int64)] = []
        var expired: [JobEvent] = []
        while h.armed != nil {
            let fired = h.fireAtArmedDeadline()
            for event in fired.events(.tick) {
                ticks.append((h.now.instant.nanoseconds(since: start), event.remainingMs!))
            }
            expired += fired.events(.expired)
        }
        #expect(ticks.map(\.remaining) == [9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000])
        #expect(ticks.allSatisfy { $0.at + $0.remaining * ms == 10 * second })
        #expect(expired.count == 1)
        #expect(expired.first?.lateByMs == 0)
    }

    @Test("a fractional tick interval still lands on multiples of the tick")
    func customTick() {
        var h = Harness()
        _ = h.countdown(key: "k", seconds: 2, tickMs: 500, follow: true)
        var remaining: [Int64] = []
        while h.armed != nil { remaining += h.fireAtArmedDeadline().events(.tick).compactMap(\.remainingMs) }
        #expect(remaining == [1500, 1000, 500])
    }

    @Test("a user's watch of a scope ticks only its own countdowns there, another user's jobs in it neither tick nor reach it, and root's sees all")
    func scopeWatchPerOwner() {
        var h = Harness()
        let other = h.countdown(key: "b", seconds: 10, scope: "shared", connection: 2)
        let armed = h.armed
        for _ in 0..<100 { _ = h.request(.watch(JobSelector(scope: "shared")), connection: 1) }
        #expect(h.armed == armed, "the other user's countdown does not start ticking")
        let mine = h.countdown(key: "a", seconds: 10, scope: "shared", connection: 1)
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.tick).map(\.job) == [mine.id.rawValue], "the user's own countdown ticks under its watch")
        #expect(!fired.events(.tick).contains { $0.job == other.id.rawValue })
        _ = h.request(.watch(JobSelector(scope: "shared")), connection: 3)
        var seen: Set<String> = []
        while h.armed != nil, seen.count < 2 { seen.formUnion(h.fireAtArmedDeadline().events(.tick).map(\.job)) }
        #expect(seen == [mine.id.rawValue, other.id.rawValue], "root's watch ticks every owner's")
    }

    @Test("ticks of many countdowns due together are handled a turn's share at a time, one re-arm per turn, the next share at once")
    func manyTicksInShares() {
        var h = Harness()
        let share = h.scheduler.configuration.timerEntriesPerTurn
        _ = h.request(.watch(JobSelector(scope: "batch")))
        for index in 0..<1_000 {
            _ = h.countdown(key: "k\(index)", seconds: 5, scope: "batch")
        }
        guard let due = h.armed else { Issue.record("not armed"); return }
        h.advance(due.nanoseconds(since: h.now.instant))
        let first = h.handle(.timerFired)
        #expect(first.events(.tick).count == share)
        #expect(first.arms == [due], "the rest of the burst is still due: the timer is armed for it again at once")
        let rest = h.fireDue()
        #expect(rest.events(.tick).count == 1_000 - share)
        #expect(Set((first + rest).events(.tick).compactMap(\.remainingMs)) == [4000])
        #expect(rest.arms.count == (1_000 - 1) / share, "one arming per turn: \(rest.arms)")
        #expect(rest.arms.last == due.advanced(by: 1_000_000_000), "then the next tick")
    }

    @Test("a burst larger than a turn's share: each share's expiries report late_by from when that share is handled")
    func burstLateByPerShare() {
        var h = Harness()
        let share = h.scheduler.configuration.timerEntriesPerTurn
        _ = h.request(.watch(JobSelector(scope: "burst")))
        for index in 0..<(share + 10) {
            _ = h.countdown(key: "b\(index)", seconds: 1, tickMs: 60_000, scope: "burst")
        }
        guard let due = h.armed else { Issue.record("not armed"); return }
        h.advance(due.nanoseconds(since: h.now.instant))
        let first = h.handle(.timerFired).events(.expired)
        #expect(first.count == share && first.allSatisfy { $0.lateByMs == 0 })
        h.advance(2 * Harness.ms)
        let rest = h.handle(.timerFired).events(.expired)
        #expect(rest.count == 10 && rest.allSatisfy { $0.lateByMs == 2 }, "\(rest.map(\.lateByMs))")
    }

    @Test("cancel ends a countdown at once; no tick or expiry follows, and the idle timer disarms")
    func cancelStopsEverything() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 10, follow: true)
        h.advance(3_500 * ms)
        let effects = h.request(.cancel(JobSelector(job: id.rawValue)))
        guard case .success(.cancelled(let result)) = effects.replies.first?.result else {
            Issue.record("cancel failed: \(effects)")
            return
        }
        #expect(result.cancelled == [id.rawValue])
        #expect(effects.events(.cancelled).first?.reason == .requested)
        #expect(effects.disarms == 1)
        #expect(h.armed == nil)
        h.advance(60 * second)
        let later = h.handle(.timerFired)
        #expect(later.events.isEmpty)
        #expect(h.scheduler.job(id)?.state == .cancelled)
    }

    @Test("cancel by key and by scope reach only the caller's jobs")
    func cancelByKeyAndScope() {
        var h = Harness()
        let a = h.countdown(key: "a", seconds: 10, scope: "s")
        let b = h.countdown(key: "b", seconds: 10, scope: "s")
        let other = h.countdown(key: "c", seconds: 10, scope: "s", connection: 2)
        let byKey = h.request(.cancel(JobSelector(key: "a")))
        guard case .success(.cancelled(let keyResult)) = byKey.replies.first?.result else { return }
        #expect(keyResult.cancelled == [a.id.rawValue])
        let byScope = h.request(.cancel(JobSelector(scope: "s")))
        guard case .success(.cancelled(let scopeResult)) = byScope.replies.first?.result else { return }
        #expect(scopeResult.cancelled == [b.id.rawValue])
        #expect(h.scheduler.job(other.id)?.state == .active)
    }

    @Test("expiry emits expired exactly once, then the idle timer disarms")
    func expiryOnce() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 3)
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.expired).map(\.job) == [id.rawValue])
        #expect(fired.disarms == 1)
        h.advance(10 * second)
        let again = h.handle(.timerFired)
        #expect(again.events(.expired).isEmpty)
        #expect(h.scheduler.job(id)?.state == .expired)
    }

    @Test("with no jobs left the effects disarm the timer")
    func idleDisarms() {
        var h = Harness()
        _ = h.countdown(key: "k", seconds: 1)
        var effects: [SchedulerEffect] = []
        while h.armed != nil { effects += h.fireAtArmedDeadline() }
        #expect(effects.disarms == 1)
        #expect(h.scheduler.nextDeadline == nil)
        #expect(h.scheduler.activeJobCount == 0)
    }

    @Test("ended jobs stay visible for the retention period, then are forgotten without any timer")
    func retention() {
        var h = Harness(configuration: { var c = SchedulerConfiguration(); c.retentionNanos = 60 * second; return c }())
        let (id, _, _) = h.countdown(key: "k", seconds: 1)
        _ = h.fireAtArmedDeadline()
        #expect(h.armed == nil)
        h.advance(59 * second)
        #expect(h.request(.status(StatusRequest(job: id.rawValue))).errorCodes.isEmpty)
        h.advance(2 * second)
        let effects = h.request(.status(StatusRequest(job: id.rawValue)))
        #expect(effects.errorCodes == [.unknownJob])
        #expect(h.persisted.last == .delete(id.rawValue))
    }

    @Test("a boot-clock jump past the deadline (suspend) expires once with late_by and no burst of ticks")
    func suspendPastDeadline() {
        var h = Harness()
        _ = h.countdown(key: "k", seconds: 10, follow: true)
        _ = h.fireAtArmedDeadline()  // the 9 s tick
        h.advance(75 * second)  // the machine slept
        let fired = h.handle(.timerFired)
        #expect(fired.events(.tick).isEmpty)
        let expired = fired.events(.expired)
        #expect(expired.count == 1)
        #expect(expired.first?.lateByMs == 66_000)
    }

    @Test("a smaller boot-clock jump gives one tick with the true remaining time")
    func smallJumpOneTick() {
        var h = Harness()
        _ = h.countdown(key: "k", seconds: 10, follow: true)
        _ = h.fireAtArmedDeadline()  // 9 s left
        h.advance(4_300 * ms)  // 4.7 s left: the 8, 7, 6 and 5 s ticks were slept through
        let fired = h.handle(.timerFired)
        #expect(fired.events(.tick).compactMap(\.remainingMs) == [4_700])
        #expect(h.armed == h.now.instant.advanced(by: 700 * ms))  // next: the 4 s tick
        let next = h.fireAtArmedDeadline()
        #expect(next.events(.tick).compactMap(\.remainingMs) == [4_000])
    }

    @Test("a wall-clock step alone does not move a countdown")
    func wallStepDoesNotMove() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 10)
        let armedBefore = h.armed
        h.now.wall.nanosecondsSinceEpoch += 3_600 * second  // NTP steps the clock an hour ahead
        let fired = h.handle(.timerFired)
        #expect(fired.events.isEmpty)
        #expect(h.armed == armedBefore)
        h.now.wall.nanosecondsSinceEpoch -= 7_200 * second  // and then two hours back
        _ = h.handle(.timerFired)
        guard case .success(.job(let result)) = h.request(.status(StatusRequest(job: id.rawValue))).replies.first?.result
        else { return }
        #expect(result.job.remainingMs == 10_000)
        #expect(h.scheduler.job(id)?.state == .active)
    }

    @Test("wait replies when the countdown ends, and at once for an ended one")
    func waitReplies() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 2)
        let waiting = h.request(.wait(WaitRequest(job: id.rawValue)))
        #expect(waiting.replies.isEmpty)
        let fired = h.fireAtArmedDeadline()
        guard case .success(.job(let result)) = fired.replies.first?.result else {
            Issue.record("no wait reply")
            return
        }
        #expect(result.job.state == .expired)
        let again = h.request(.wait(WaitRequest(job: id.rawValue)))
        #expect(again.replies.count == 1)
    }

    @Test("a connection holds at most 16 watches of one job or scope; the next is refused quota_exceeded and changes nothing, and an unwatch makes room")
    func watchesCapped() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 10, scope: "s")
        for selector in [JobSelector(job: id.rawValue), JobSelector(scope: "s")] {
            var first: RequestID?
            for _ in 0..<Subscriptions.maxWatchesOfOne {
                first = first ?? .number(h.nextRequest)
                #expect(h.request(.watch(selector)).errorCodes.isEmpty)
            }
            #expect(h.request(.watch(selector)).errorCodes == [.quotaExceeded])
            #expect(h.request(.watch(selector), connection: 3).errorCodes.isEmpty, "another connection is not held back")
            _ = h.request(.unwatch(UnwatchRequest(watch: first!)))
            #expect(h.request(.watch(selector)).errorCodes.isEmpty)
        }
    }

    @Test("unwatch ends only the streams its watch request started")
    func unwatchEndsOneStream() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 10, scope: "s")
        _ = h.request(.watch(JobSelector(scope: "s")))  // request 2
        _ = h.request(.watch(JobSelector(job: id.rawValue)))  // request 3
        let unwatched = h.request(.unwatch(UnwatchRequest(watch: .number(2))))
        guard case .success(.unwatched(let result)) = unwatched.replies.first?.result else {
            Issue.record("no unwatch reply")
            return
        }
        #expect(result.removed == 1)
        let tick = h.fireAtArmedDeadline().events(.tick)
        #expect(tick.count == 1)
        #expect(h.scheduler.subscriptions.recipients(of: h.scheduler.table[id]!) == [Recipient(connection: ConnectionID(1), watch: .number(3))])
        _ = h.request(.unwatch(UnwatchRequest(watch: .number(3))))
        #expect(h.scheduler.subscriptions.isWatched(h.scheduler.table[id]!) == false)
    }

    @Test("a closed connection's watches and waits are forgotten")
    func connectionCloseDropsSubscriptions() {
        var h = Harness()
        let (id, _, _) = h.countdown(key: "k", seconds: 3, follow: true)
        _ = h.request(.wait(WaitRequest(job: id.rawValue)))
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        var effects: [SchedulerEffect] = []
        while h.armed != nil { effects += h.fireAtArmedDeadline() }
        #expect(effects.replies.isEmpty)
        #expect(effects.events(.expired).first?.job == id.rawValue)
        #expect(effects.events.allSatisfy { $0.to.isEmpty })
        #expect(effects.events(.tick).isEmpty)
    }
}
