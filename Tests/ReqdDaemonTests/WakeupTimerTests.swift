import Dispatch
import Foundation
import ReqdCore
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("The scheduler's timer, on a real timerfd")
struct WakeupTimerTests {
    /// Arms a timer `ahead` nanoseconds out and returns the boot-clock instants at which it fired
    /// until 200 ms past the deadline, with the deadline less 0.1 ms (the wall clock it is armed
    /// on may run a little apart from the boot clock).
    private func fire(earlyNanos: Int64, ahead: Int64) throws -> (deadline: Instant, fired: [Instant]) {
        let queue = DispatchQueue(label: "reqd.test.timer")
        let fired = Mutex<[Instant]>([])
        let timer = try #require(WakeupTimer(queue: queue, earlyNanos: earlyNanos) { fired.withLock { $0.append(SystemClock.now().instant) } })
        defer { timer.cancel() }
        let now = SystemClock.now()
        let deadline = now.instant.advanced(by: ahead)
        queue.sync { timer.apply(.arm(deadline), now: now) }
        usleep(UInt32((ahead + 200_000_000) / 1000))
        return (deadline.advanced(by: -100_000), fired.withLock { $0 })
    }

    @Test("a distant deadline with an early wake-up fires once, at its instant and not before", arguments: [Int64(0), 5_000_000])
    func distantDeadline(earlyNanos: Int64) throws {
        let (deadline, fired) = try fire(earlyNanos: earlyNanos, ahead: 50_000_000)
        #expect(fired.count == 1, "\(fired)")
        #expect(fired.allSatisfy { $0 >= deadline }, "the early wake-up only re-arms: \(fired.map { $0.nanoseconds(since: deadline) }) ns")
    }

    @Test("a deadline within the idle threshold is armed for its instant alone")
    func nearDeadline() throws {
        let (deadline, fired) = try fire(earlyNanos: 800_000, ahead: WakeupTimer.idleNanos / 2)
        #expect(fired.count == 1)
        #expect(fired.allSatisfy { $0 >= deadline })
    }

    @Test("disarming after an early arming leaves nothing to fire")
    func disarmed() throws {
        let queue = DispatchQueue(label: "reqd.test.timer")
        let fired = Mutex(0)
        let timer = try #require(WakeupTimer(queue: queue, earlyNanos: 5_000_000) { fired.withLock { $0 += 1 } })
        defer { timer.cancel() }
        let now = SystemClock.now()
        queue.sync {
            timer.apply(.arm(now.instant.advanced(by: 20_000_000)), now: now)
            timer.apply(.disarm, now: now)
        }
        usleep(100_000)
        #expect(fired.withLock { $0 } == 0)
    }
}
