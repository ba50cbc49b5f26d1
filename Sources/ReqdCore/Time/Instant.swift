/// A point on the boot-time clock (CLOCK_BOOTTIME), in nanoseconds.
///
/// The scheduler measures every deadline on this clock: it keeps running through a system suspend
/// and is not moved when the wall clock is stepped.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since boot.
    public var nanoseconds: Int64

    /// Creates an instant from nanoseconds since boot.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// An instant before any real one; never a deadline.
    public static let distantPast = Instant(nanoseconds: .min)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `nanoseconds` later (saturating, so absurd inputs never trap).
    public func advanced(by nanoseconds: Int64) -> Instant {
        Instant(nanoseconds: self.nanoseconds.addingReportingOverflow(nanoseconds).overflow
            ? (nanoseconds > 0 ? .max : .min) : self.nanoseconds + nanoseconds)
    }

    /// Nanoseconds from `other` to `self`.
    public func nanoseconds(since other: Instant) -> Int64 { nanoseconds - other.nanoseconds }

    /// Nanoseconds as whole milliseconds, rounded to the nearest, as the wire shows durations.
    public static func roundedMilliseconds(_ nanoseconds: Int64) -> Int64 {
        (nanoseconds + (nanoseconds >= 0 ? 500_000 : -500_000)) / 1_000_000
    }

    public var description: String { "boot+\(Double(nanoseconds) / 1e9)s" }
}
