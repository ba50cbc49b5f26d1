import CSystemd
import Dispatch
import Glibc
import ReqdCore

/// The loop's one timer: a CLOCK_REALTIME timerfd made at start, watched by a dispatch read source.
///
/// A boot-time instant becomes the wall-clock time `now.wall + (instant - now.instant)`: a timer on
/// CLOCK_MONOTONIC stops during a suspend and would fire late after one; a wall-clock timer fires
/// on time. A step of the wall clock moves it, which is why the loop re-arms it then.
///
/// Not a `DispatchSourceTimer`: on Linux, libdispatch makes its wall-clock timerfd when a timer is
/// armed and closes it when none is, so a daemon out of descriptors (EMFILE) could arm its timer
/// and never be woken: a countdown registered then did not expire until descriptors were free
/// (measured: `timerfd_create(CLOCK_REALTIME) = -1 EMFILE`). This timerfd is made once, at start,
/// and re-arming it never needs another descriptor.
final class WakeupTimer {
    private let descriptor: Int32
    private let source: DescriptorReadSource

    /// Creates the timer, unarmed; `onFire` runs on `queue`. Nil when the timerfd cannot be made.
    init?(queue: DispatchQueue, onFire: @escaping @Sendable () -> Void) {
        let fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = fd
        source = DescriptorReadSource(descriptor: fd, queue: queue) {
            var expirations: UInt64 = 0
            guard read(fd, &expirations, 8) == 8 else { return }
            onFire()
        }
    }

    /// Carries out what the plan asks for; `now` converts the instant to wall-clock time.
    func apply(_ arming: WakeupPlan.Arming, now: ClockReading) {
        var spec = itimerspec()
        switch arming {
        case .keep:
            return
        case .disarm:
            break
        case .arm(let instant):
            // A deadline already passed fires at once: an absolute time in the past expires now.
            let wall = max(1, now.wall.nanosecondsSinceEpoch + max(0, instant.nanoseconds(since: now.instant)))
            spec.it_value = timespec(tv_sec: Int(wall / 1_000_000_000), tv_nsec: Int(wall % 1_000_000_000))
        }
        _ = timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Stops the timer and waits until its descriptor is closed; not from the loop's queue.
    func cancel() {
        source.cancel()
    }

    /// Stops the timer; its descriptor is closed soon after, on the loop's queue.
    func cancelLater() {
        source.cancelLater()
    }

    /// Disarms the timer; a wake-up already due may still arrive, and the loop ignores it once stopped.
    func disarm() {
        var spec = itimerspec()
        _ = timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
