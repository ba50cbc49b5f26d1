import CSystemd
import Dispatch
import Glibc

/// Calls back when the wall clock is stepped (settimeofday, NTP steps, a resume that sets the clock).
///
/// The one scheduler timer is armed in wall-clock time so that it fires on time after a suspend;
/// a step would move it, so the loop re-arms it from the boot-time deadline whenever this fires.
/// It uses a CLOCK_REALTIME timerfd with TFD_TIMER_CANCEL_ON_SET, which never expires on its own
/// and so never wakes an idle daemon.
final class ClockChangeMonitor {
    private let source: DescriptorReadSource

    /// Starts watching; `onChange` runs on `queue`. Nil when the timerfd cannot be made.
    init?(queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        let fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard Self.arm(fd) else {
            close(fd)
            return nil
        }
        source = DescriptorReadSource(descriptor: fd, queue: queue) {
            var expirations: UInt64 = 0
            _ = read(fd, &expirations, 8)
            _ = Self.arm(fd)
            onChange()
        }
    }

    private static func arm(_ fd: Int32) -> Bool {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(Int32.max)
        return timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | reqd_tfd_cancel_on_set(), &spec, nil) == 0
    }

    /// Stops watching and closes the descriptor before returning; not from `queue`.
    func cancel() { source.cancel() }

    /// Stops watching; the descriptor is closed soon after.
    func cancelLater() { source.cancelLater() }
}
