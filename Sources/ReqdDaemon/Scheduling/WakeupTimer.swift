import Dispatch
import Glibc
import ReqdCore

/// The loop's one `DispatchSourceTimer`, armed in wall-clock time.
///
/// A boot-time instant becomes the wall-clock time `now.wall + (instant - now.instant)`: a timer on
/// CLOCK_MONOTONIC (`DispatchTime`) stops during a suspend and would fire late after one; a wall-clock
/// timer fires on time. A step of the wall clock moves it, which is why the loop re-arms it then.
final class WakeupTimer {
    private let source: DispatchSourceTimer

    /// Creates the timer, unarmed; `onFire` runs on `queue`.
    init(queue: DispatchQueue, onFire: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler(handler: onFire)
        source.schedule(wallDeadline: .distantFuture)
        source.activate()
    }

    /// Carries out what the plan asks for; `now` converts the instant to wall-clock time.
    func apply(_ arming: WakeupPlan.Arming, now: ClockReading) {
        switch arming {
        case .keep:
            return
        case .disarm:
            source.schedule(wallDeadline: .distantFuture)
        case .arm(let instant):
            let delay = instant.nanoseconds(since: now.instant)
            guard delay > 0 else {
                source.schedule(wallDeadline: .now())
                return
            }
            let wall = now.wall.nanosecondsSinceEpoch + delay
            source.schedule(
                wallDeadline: DispatchWallTime(
                    timespec: timespec(tv_sec: Int(wall / 1_000_000_000), tv_nsec: Int(wall % 1_000_000_000))))
        }
    }

    /// Stops the timer for good; its handler does not run again.
    func cancel() {
        source.cancel()
    }
}
