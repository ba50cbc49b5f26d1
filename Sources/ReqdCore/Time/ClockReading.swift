import ReqdProtocol

/// One reading of both clocks at the same moment: the boot-time instant and the wall-clock time.
///
/// Deadlines live on the boot-time clock; the wall clock is only used to show times to people and to
/// persist deadlines so they survive a reboot.
public struct ClockReading: Hashable, Sendable {
    /// The boot-time clock.
    public var instant: Instant
    /// The wall clock.
    public var wall: WallTime

    public init(instant: Instant, wall: WallTime) {
        self.instant = instant
        self.wall = wall
    }

    /// The wall-clock time that corresponds to `other` on the boot-time clock, as of this reading.
    public func wall(at other: Instant) -> WallTime {
        WallTime(nanosecondsSinceEpoch: wall.nanosecondsSinceEpoch &+ other.nanoseconds(since: instant))
    }

    /// The boot-time instant that corresponds to `other` on the wall clock, as of this reading.
    public func instant(at other: WallTime) -> Instant {
        instant.advanced(by: other.nanosecondsSinceEpoch &- wall.nanosecondsSinceEpoch)
    }
}
