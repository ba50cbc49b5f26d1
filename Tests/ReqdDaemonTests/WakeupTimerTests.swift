import Dispatch
import Foundation
import ReqdCore
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("The scheduler's timer, on a real timerfd")
struct WakeupTimerTests {
    /// A timer on a queue of its own, and the boot-clock instants at which it fired.
    private final class Fixture: @unchecked Sendable {
        // @unchecked Sendable: `timer` is used only through `queue`; `fired` is a Mutex.
        let queue = DispatchQueue(label: "reqd.test.timer")
        let fired = Mutex<[Instant]>([])
        var timer: WakeupTimer!

        init(earlyNanos: Int64) throws {
            timer = WakeupTimer(queue: queue, earlyNanos: earlyNanos) { [weak self] in
                self?.fired.withLock { $0.append(SystemClock.now().instant) }
            }
        }

        /// Arms the timer `ahead` nanoseconds out; returns the deadline less 0.1 ms (the wall clock
        /// it is armed on may run a little apart from the boot clock).
        func arm(ahead: Int64) -> Instant {
            let now = SystemClock.now()
            queue.sync { timer.apply(.arm(now.instant.advanced(by: ahead)), now: now) }
            return now.instant.advanced(by: ahead - 100_000)
        }

        var earlyWakeups: Int { queue.sync { timer.earlyWakeups } }

        /// Waits up to a second for `done`.
        func wait(until done: () -> Bool) {
            let until = Date().addingTimeInterval(1)
            while !done(), Date() < until { usleep(1_000) }
        }
    }

    @Test("a distant deadline is woken for early, then fires once, at its instant and not before; with early_wake 0 it is woken for once", arguments: [Int64(0), 5_000_000])
    func distantDeadline(earlyNanos: Int64) throws {
        let fixture = try Fixture(earlyNanos: earlyNanos)
        defer { fixture.timer.cancel() }
        let deadline = fixture.arm(ahead: 50_000_000)
        usleep(250_000)
        let fired = fixture.fired.withLock { $0 }
        #expect(fired.count == 1, "\(fired)")
        #expect(fired.allSatisfy { $0 >= deadline }, "the early wake-up only re-arms: \(fired.map { $0.nanoseconds(since: deadline) }) ns")
        #expect(fixture.earlyWakeups == (earlyNanos > 0 ? 1 : 0))
    }

    @Test("a deadline centuries away (a dead_retention of 100000d, say) is armed without a trap, and never fires", arguments: [Int64(0), 5_000_000])
    func centuriesAway(earlyNanos: Int64) throws {
        let fixture = try Fixture(earlyNanos: earlyNanos)
        defer { fixture.timer.cancel() }
        _ = fixture.arm(ahead: 100_000 * 86_400 * 1_000_000_000)
        _ = fixture.arm(ahead: .max)
        usleep(50_000)
        #expect(fixture.fired.withLock { $0 } == [])
    }

    @Test("a deadline within the idle threshold is armed for its instant alone")
    func nearDeadline() throws {
        let fixture = try Fixture(earlyNanos: 800_000)
        defer { fixture.timer.cancel() }
        let deadline = fixture.arm(ahead: WakeupTimer.idleNanos / 2)
        usleep(100_000)
        #expect(fixture.fired.withLock { $0.count == 1 && $0.allSatisfy { $0 >= deadline } })
        #expect(fixture.earlyWakeups == 0)
    }

    @Test("disarmed after its early wake-up, a deadline does not fire; armed again for another, it fires for that one")
    func disarmedAfterTheEarlyWakeup() throws {
        let fixture = try Fixture(earlyNanos: 150_000_000)
        defer { fixture.timer.cancel() }
        _ = fixture.arm(ahead: 200_000_000)
        fixture.wait { fixture.earlyWakeups == 1 }
        try #require(fixture.earlyWakeups == 1)
        fixture.queue.sync { fixture.timer.disarm() }
        usleep(250_000)
        #expect(fixture.fired.withLock { $0 } == [])
        let deadline = fixture.arm(ahead: 20_000_000)
        fixture.wait { !fixture.fired.withLock { $0 }.isEmpty }
        usleep(50_000)
        #expect(fixture.fired.withLock { $0.count == 1 && $0.allSatisfy { $0 >= deadline } })
        #expect(fixture.earlyWakeups == 2)
    }
}
