/// A systemd calendar event expression (`OnCalendar=` in systemd.time(7)), parsed and normalized
/// the way `systemd-analyze calendar` does.
public struct CalendarSpec: CivilPattern, Hashable, Sendable {
    /// Weekdays allowed, bit 0 for Monday to bit 6 for Sunday; nil for every day.
    public var weekdays: UInt8?
    /// Each field's list; nil for `*`.
    public var year: [CalendarComponent]?
    public var month: [CalendarComponent]?
    /// Days of the month, or with `endOfMonth` days counted back from its end (`~`, 1 the last).
    public var day: [CalendarComponent]?
    public var endOfMonth = false
    public var hour: [CalendarComponent]?
    public var minute: [CalendarComponent]?
    /// Microseconds into the minute.
    public var second: [CalendarComponent]
    /// The zone named at the end of the expression, `UTC` included; nil for the caller's zone.
    public var zone: String?

    static let microsecondsPerSecond = 1_000_000

    public var repeatsHour: Bool {
        guard let hour else { return true }
        return (0...23).lazy.filter { Self.matches(hour, $0) }.prefix(2).count > 1
    }

    public func firstMatch(atOrAfter time: CivilTime) -> CivilTime? {
        var c = time
        while c.year <= 2199 {
            guard let year = Self.first(year, atLeast: c.year, max: 2199) else { return nil }
            if year > c.year { c = CivilTime(year: year, month: 1, day: 1) }
            guard let month = Self.first(month, atLeast: c.month, max: 12) else {
                c = c.nextYear
                continue
            }
            if month > c.month { c = CivilTime(year: c.year, month: month, day: 1) }
            let last = CivilTime.daysIn(month: c.month, year: c.year)
            guard let day = firstDay(atLeast: c.day, lastDay: last) else {
                c = c.nextMonth
                continue
            }
            if day > c.day { c = CivilTime(year: c.year, month: c.month, day: day) }
            if let weekdays, weekdays & (1 << c.weekday) == 0 {
                c = c.nextDay
                continue
            }
            guard let hour = Self.first(hour, atLeast: c.hour, max: 23) else {
                c = c.nextDay
                continue
            }
            if hour > c.hour { c = CivilTime(year: c.year, month: c.month, day: c.day, hour: hour) }
            guard let minute = Self.first(minute, atLeast: c.minute, max: 59) else {
                c = c.nextHour
                continue
            }
            if minute > c.minute { c = CivilTime(year: c.year, month: c.month, day: c.day, hour: c.hour, minute: minute) }
            guard let second = Self.first(second, atLeast: c.microsecond, max: 59_999_999) else {
                c = c.nextMinute
                continue
            }
            c.microsecond = second
            return c
        }
        return nil
    }

    /// The smallest value of `components` at least `value` and at most `max`; `value` itself for `*`.
    static func first(_ components: [CalendarComponent]?, atLeast value: Int, max: Int) -> Int? {
        guard let components else { return value <= max ? value : nil }
        let best = components.compactMap { $0.firstValue(atLeast: value, start: $0.start, stop: $0.stop) }.min()
        return best.flatMap { $0 <= max ? $0 : nil }
    }

    static func matches(_ components: [CalendarComponent]?, _ value: Int) -> Bool {
        first(components, atLeast: value, max: value) == value
    }

    private func firstDay(atLeast value: Int, lastDay: Int) -> Int? {
        guard endOfMonth, let day else { return Self.first(self.day, atLeast: value, max: lastDay) }
        let best = day.compactMap { component -> Int? in
            var start = lastDay - component.start + 1
            var stop = component.stop > 0 ? lastDay - component.stop + 1 : -1
            if stop > 0 { swap(&start, &stop) }
            return component.firstValue(atLeast: value, start: start, stop: stop)
        }.min()
        return best.flatMap { $0 <= lastDay ? $0 : nil }
    }
}
