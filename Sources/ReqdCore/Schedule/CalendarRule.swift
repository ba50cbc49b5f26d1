import ReqdCalendar

/// A calendar or cron rule in its zone: one object, which every schedule naming that rule holds.
///
/// A rule is a few hundred bytes (the parsed expression in its existential box and its component
/// arrays), and never changes once made, so schedules share one (`ScheduleRuleCache`).
public final class CalendarRule: Sendable {
    /// The expression and the zone it elapses in.
    public let recurrence: Recurrence

    /// Wraps a recurrence.
    public init(_ recurrence: Recurrence) { self.recurrence = recurrence }
}
