import ReqdCalendar
import ReqdProtocol

/// When a schedule elapses: a calendar or cron expression in a zone, or a fixed interval from an anchor.
public enum ScheduleRule: Sendable {
    /// An `OnCalendar=` or cron expression, resolved in its zone (`Recurrence` has the rule at clock
    /// changes). One object, shared by every schedule on the rule (`ScheduleRuleCache`): a rule is
    /// a few hundred bytes, and every schedule's slot would pay them.
    case calendar(CalendarRule)
    /// Every `interval` nanoseconds after `anchor` (the registration), whatever the zone.
    case every(interval: Int64, anchor: WallTime)

    /// The first elapse strictly after `time`; nil when there is none.
    public func next(after time: WallTime) -> WallTime? {
        switch self {
        case .calendar(let rule):
            let micros = time.nanosecondsSinceEpoch.floorDivided(by: 1000)
            return rule.recurrence.next(after: micros).map { WallTime(nanosecondsSinceEpoch: $0 * 1000) }
        case .every(let interval, let anchor):
            let since = time.nanosecondsSinceEpoch - anchor.nanosecondsSinceEpoch
            let periods = since < 0 ? 0 : since / interval + 1
            return WallTime(nanosecondsSinceEpoch: anchor.nanosecondsSinceEpoch + periods * interval)
        }
    }

    /// How many elapses fall in `from...through`, counting at most `limit`.
    func count(from: WallTime, through: WallTime, limit: Int) -> Int {
        guard from <= through else { return 0 }
        if case .every(let interval, _) = self {
            return min(limit, Int((through.nanosecondsSinceEpoch - from.nanosecondsSinceEpoch) / interval) + 1)
        }
        var count = 1
        var at = from
        while count < limit, let next = next(after: at), next <= through {
            count += 1
            at = next
        }
        return count
    }

    /// The expression in normal form (`*-*-* 09:00:00`, `0 9 * * 1-5`), or the interval as `every 5m`.
    public var normalized: String {
        switch self {
        case .calendar(let rule): rule.recurrence.pattern.normalized
        case .every(let interval, _): "every " + DurationText.format(nanoseconds: interval)
        }
    }

    /// The zone elapses are computed in; nil for an interval.
    public var zone: String? {
        if case .calendar(let rule) = self { return rule.recurrence.zone.name }
        return nil
    }
}
