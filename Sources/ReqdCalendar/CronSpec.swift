/// A five-field cron expression (`minute hour day-of-month month day-of-week`) or one of the
/// `@` names, as Vixie cron and croniter read them.
///
/// When both day fields are restricted, a day matches either, as in every cron. A field counts as
/// restricted when it leaves out some value, as croniter counts it: `*/2` restricts, `1-31` does
/// not (Vixie cron looks only at a leading `*` instead).
public struct CronSpec: CivilPattern, Hashable, Sendable {
    /// Allowed values as bits: minutes 0–59, hours 0–23, days 1–31, months 1–12, weekdays 0–6 (Sunday 0).
    public var minutes: UInt64
    public var hours: UInt32
    public var days: UInt32
    public var months: UInt16
    public var weekdays: UInt8
    /// Whether each day field leaves out some day.
    public var daysRestricted: Bool
    public var weekdaysRestricted: Bool
    /// The five fields as normalized text.
    let fields: [String]

    public var normalized: String { fields.joined(separator: " ") }

    public var repeatsHour: Bool { hours.nonzeroBitCount > 1 }

    public func firstMatch(atOrAfter time: CivilTime) -> CivilTime? {
        var c = time
        if c.microsecond > 0 {
            c = c.nextMinute
        }
        while c.year <= 2199 {
            guard months & (1 << c.month) != 0 else {
                c = c.nextMonth
                continue
            }
            guard matchesDay(c) else {
                c = c.nextDay
                continue
            }
            guard let hour = (c.hour...23).first(where: { hours & (1 << $0) != 0 }) else {
                c = c.nextDay
                continue
            }
            if hour > c.hour { c = CivilTime(year: c.year, month: c.month, day: c.day, hour: hour) }
            guard let minute = (c.minute...59).first(where: { minutes & (1 << $0) != 0 }) else {
                c = c.nextHour
                continue
            }
            c.minute = minute
            return c
        }
        return nil
    }

    private func matchesDay(_ c: CivilTime) -> Bool {
        let dayMatches = days & (1 << c.day) != 0
        let weekdayMatches = weekdays & (1 << ((c.weekday + 1) % 7)) != 0
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): return dayMatches || weekdayMatches
        case (true, false): return dayMatches
        case (false, true): return weekdayMatches
        case (false, false): return true
        }
    }
}
