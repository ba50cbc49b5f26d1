/// A date and time on a wall clock, with no zone: the proleptic Gregorian calendar.
///
/// Calendar expressions match civil times; a zone (`ZoneRules`) turns them into instants. Seconds
/// carry microseconds, as systemd's calendar does.
public struct CivilTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    /// Microseconds into the minute, 0 to 59,999,999.
    public var microsecond: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, microsecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.microsecond = microsecond
    }

    /// The civil time `seconds` (with `microseconds`) after 1970-01-01 00:00:00.
    public init(localMicroseconds: Int64) {
        let days = Int(localMicroseconds.floorDivided(by: 86_400_000_000))
        let rest = Int(localMicroseconds - Int64(days) * 86_400_000_000)
        let (year, month, day) = CivilTime.date(fromDays: days)
        self.init(
            year: year, month: month, day: day, hour: rest / 3_600_000_000, minute: rest / 60_000_000 % 60,
            microsecond: rest % 60_000_000)
    }

    /// Microseconds since 1970-01-01 00:00:00 on this same wall clock.
    public var localMicroseconds: Int64 {
        Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400_000_000 + Int64(hour) * 3_600_000_000
            + Int64(minute) * 60_000_000 + Int64(microsecond)
    }

    /// The day of the week, 0 for Monday to 6 for Sunday.
    public var weekday: Int { (CivilTime.days(year: year, month: month, day: day) + 3).floorModulo(7) }

    /// Midnight at the start of the next year, month or day, or the start of the next hour or
    /// minute: where a search for a matching time goes on when a field has no match left.
    var nextYear: CivilTime { CivilTime(year: year + 1, month: 1, day: 1) }
    var nextMonth: CivilTime { month == 12 ? nextYear : CivilTime(year: year, month: month + 1, day: 1) }
    var nextDay: CivilTime { CivilTime(localMicroseconds: CivilTime(year: year, month: month, day: day).localMicroseconds + 86_400_000_000) }
    var nextHour: CivilTime {
        CivilTime(localMicroseconds: CivilTime(year: year, month: month, day: day, hour: hour).localMicroseconds + 3_600_000_000)
    }
    var nextMinute: CivilTime {
        CivilTime(localMicroseconds: CivilTime(year: year, month: month, day: day, hour: hour, minute: minute).localMicroseconds + 60_000_000)
    }

    public static func < (a: CivilTime, b: CivilTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.microsecond) < (b.year, b.month, b.day, b.hour, b.minute, b.microsecond)
    }

    /// `2027-03-28 02:30:00`, with `.ffffff` when the second has a fraction.
    public var description: String {
        var text = "\(year.padded(4))-\(month.padded(2))-\(day.padded(2)) \(hour.padded(2)):\(minute.padded(2)):"
        text += (microsecond / 1_000_000).padded(2)
        if microsecond % 1_000_000 != 0 { text += "." + (microsecond % 1_000_000).padded(6) }
        return text
    }

    /// Whether `year` has a February 29.
    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The number of days in a month.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`).
    public static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
