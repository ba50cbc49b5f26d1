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
///
/// A deadline more than `idleNanos` away is woken for twice: `earlyNanos` before it, then at it.
/// After an idle stretch the first wake-up pays for a halted CPU (about 0.1 ms on a VM); the
/// second comes while it is awake, so the deadline itself is handled close to its instant.
/// Measured with bench/timerfd-floor.c's loop at one deadline a second: p99 0.128 ms with one
/// wake-up, 0.063 ms with a first one 100 µs early.
final class WakeupTimer {
    /// How far ahead a deadline must be for the timer to wake early for it.
    static let idleNanos: Int64 = 1_000_000

    private let descriptor: Int32
    private let source: DescriptorReadSource
    private let earlyNanos: Int64
    private let early: EarlyWake

    /// The deadline an early wake-up is for, in wall-clock nanoseconds.
    private final class EarlyWake: @unchecked Sendable {
        // @unchecked Sendable: `deadline` is read and written only on the loop's queue, by `apply`,
        // `disarm` and the read source's handler.
        var deadline: Int64?
        /// Early wake-ups so far, each followed by the deadline's own.
        var count = 0
    }

    /// Early wake-ups so far; on the loop's queue.
    var earlyWakeups: Int { early.count }

    /// Creates the timer, unarmed; `onFire` runs on `queue`. With `earlyNanos` above zero it wakes
    /// that much before a distant deadline as well. Nil when the timerfd cannot be made.
    init?(queue: DispatchQueue, earlyNanos: Int64, onFire: @escaping @Sendable () -> Void) {
        let fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = fd
        self.earlyNanos = earlyNanos
        let early = EarlyWake()
        self.early = early
        source = DescriptorReadSource(descriptor: fd, queue: queue) {
            var expirations: UInt64 = 0
            guard read(fd, &expirations, 8) == 8 else { return }
            if let deadline = early.deadline {
                early.deadline = nil
                if SystemClock.now().wall.nanosecondsSinceEpoch < deadline {
                    early.count += 1
                    Self.arm(fd, at: deadline)
                    return
                }
            }
            onFire()
        }
    }

    /// Carries out what the plan asks for; `now` converts the instant to wall-clock time.
    func apply(_ arming: WakeupPlan.Arming, now: ClockReading) {
        switch arming {
        case .keep:
            return
        case .disarm:
            disarm()
        case .arm(let instant):
            // A deadline already passed fires at once: an absolute time in the past expires now.
            let ahead = max(0, instant.nanoseconds(since: now.instant))
            // A deadline centuries away (a setting of `100000d`) saturates, never traps.
            let (sum, overflow) = now.wall.nanosecondsSinceEpoch.addingReportingOverflow(ahead)
            let wall = overflow ? Int64.max : max(1, sum)
            if earlyNanos > 0, ahead > Self.idleNanos {
                early.deadline = wall
                Self.arm(descriptor, at: wall - earlyNanos)
            } else {
                early.deadline = nil
                Self.arm(descriptor, at: wall)
            }
        }
    }

    /// Arms `descriptor` for the wall-clock time `wall`, in nanoseconds since the epoch.
    private static func arm(_ descriptor: Int32, at wall: Int64) {
        var spec = itimerspec()
        spec.it_value = timespec(tv_sec: Int(wall / 1_000_000_000), tv_nsec: Int(wall % 1_000_000_000))
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
        early.deadline = nil
        var spec = itimerspec()
        _ = timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
