/// The POSIX `TZ` rule at the end of a TZif file (`CET-1CEST,M3.5.0,M10.5.0/3`): how a zone's clocks
/// change in the years after its last listed transition.
struct PosixZoneRule: Hashable, Sendable {
    /// A day of the year in one of POSIX's three forms.
    enum Day: Hashable, Sendable {
        /// `Jn`: 1 to 365, February 29 never counted.
        case julian(Int)
        /// `n`: 0 to 365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 is Sunday) of week `w` (5 is the last) of month `m`.
        case monthWeek(month: Int, week: Int, weekday: Int)
    }

    /// When a change happens: a day, and seconds past its local midnight (may be negative or past 24 h).
    struct Change: Hashable, Sendable {
        var day: Day
        var time: Int
    }

    var standard: LocalTimeType
    var daylight: LocalTimeType?
    var start = Change(day: .monthWeek(month: 3, week: 2, weekday: 0), time: 7200)
    var end = Change(day: .monthWeek(month: 11, week: 1, weekday: 0), time: 7200)

    /// The year's two changes, in order; none when the zone keeps standard time.
    func transitions(inYear year: Int) -> [ZoneTransition] {
        guard let daylight else { return [] }
        let toDaylight = ZoneTransition(
            at: Int64(Self.localSeconds(start, year: year) - standard.offset), before: standard, after: daylight)
        let toStandard = ZoneTransition(
            at: Int64(Self.localSeconds(end, year: year) - daylight.offset), before: daylight, after: standard)
        return toDaylight.at <= toStandard.at ? [toDaylight, toStandard] : [toStandard, toDaylight]
    }

    private static func localSeconds(_ change: Change, year: Int) -> Int {
        let januaryFirst = CivilTime.days(year: year, month: 1, day: 1)
        let day: Int
        switch change.day {
        case .julian(let n):
            day = januaryFirst + n - 1 + (CivilTime.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = januaryFirst + n
        case .monthWeek(let month, let week, let weekday):
            let first = CivilTime.days(year: year, month: month, day: 1)
            // 1970-01-01 was a Thursday (4, counting Sunday as 0).
            let firstWeekday = (first + 4).floorModulo(7)
            var dayOfMonth = 1 + (weekday - firstWeekday).floorModulo(7) + (week - 1) * 7
            while dayOfMonth > CivilTime.daysIn(month: month, year: year) { dayOfMonth -= 7 }
            day = first + dayOfMonth - 1
        }
        return day * 86_400 + change.time
    }
}
