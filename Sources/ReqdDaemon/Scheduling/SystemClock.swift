import CSystemd
import Glibc
import ReqdCore
import ReqdProtocol

/// Reads the two clocks the scheduler needs: CLOCK_BOOTTIME for deadlines and CLOCK_REALTIME for people.
public enum SystemClock {
    /// Both clocks, read back to back.
    public static func now() -> ClockReading {
        var boot = timespec()
        var wall = timespec()
        clock_gettime(clockid_t(reqd_clock_boottime()), &boot)
        clock_gettime(CLOCK_REALTIME, &wall)
        return ClockReading(
            instant: Instant(nanoseconds: Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec)),
            wall: WallTime(nanosecondsSinceEpoch: Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)))
    }
}
