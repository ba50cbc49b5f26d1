/// A set of wall-clock times a recurring expression matches, with no zone: calendar (`OnCalendar=`)
/// and cron expressions both are one.
public protocol CivilPattern: Sendable {
    /// The first matching wall-clock time at or after `time`; nil when none comes before the year 2200.
    func firstMatch(atOrAfter time: CivilTime) -> CivilTime?

    /// Whether the pattern matches more than one hour of the day. Such a pattern fires on every real
    /// elapse around a clock change: twice in the hour a fall-back repeats, never in a spring-forward
    /// gap. A fixed hour fires once in the repeated hour (its first occurrence), and at the end of
    /// a gap that swallowed it.
    var repeatsHour: Bool { get }

    /// The expression in its normal form.
    var normalized: String { get }
}
