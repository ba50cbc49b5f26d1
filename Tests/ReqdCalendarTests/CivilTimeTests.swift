import Testing
@testable import ReqdCalendar

@Suite("Civil time arithmetic")
struct CivilTimeTests {
    @Test("days since the epoch round-trip for every day from 1900 to 2200")
    func daysRoundTrip() {
        let first = CivilTime.days(year: 1900, month: 1, day: 1)
        let last = CivilTime.days(year: 2200, month: 12, day: 31)
        var expected = (year: 1900, month: 1, day: 1)
        for day in first...last {
            let date = CivilTime.date(fromDays: day)
            #expect(date == expected, "day \(day)")
            if date != expected { return }
            #expect(CivilTime.days(year: date.year, month: date.month, day: date.day) == day)
            expected.day += 1
            if expected.day > CivilTime.daysIn(month: expected.month, year: expected.year) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 { (expected.month, expected.year) = (1, expected.year + 1) }
            }
        }
    }

    @Test("weekdays and leap years of known dates")
    func knownDates() {
        #expect(CivilTime(year: 1970, month: 1, day: 1).weekday == 3)  // Thursday
        #expect(CivilTime(year: 2027, month: 3, day: 28).weekday == 6)  // Sunday
        #expect(CivilTime(year: 2000, month: 2, day: 29).weekday == 1)  // Tuesday
        #expect(CivilTime.isLeap(2000) && CivilTime.isLeap(2028) && !CivilTime.isLeap(2100) && !CivilTime.isLeap(2027))
        #expect(CivilTime(localMicroseconds: -1).description == "1969-12-31 23:59:59.999999")
    }
}
