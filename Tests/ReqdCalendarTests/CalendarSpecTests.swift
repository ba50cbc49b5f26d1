import Testing
@testable import ReqdCalendar

@Suite("OnCalendar= expressions: parsing, normal forms, refusals")
struct CalendarSpecTests {
    /// Each pair was checked with `systemd-analyze calendar` (systemd 252).
    @Test(
        "normal forms match systemd's",
        arguments: [
            ("Mon *-05~07/1", "Mon *-05~07/1 00:00:00"),
            ("*:0/15", "*-*-* *:00/15:00"),
            ("hourly", "*-*-* *:00:00"),
            ("weekly", "Mon *-*-* 00:00:00"),
            ("quarterly", "*-01,04,07,10-01 00:00:00"),
            ("Mon..Wed,Fri *-*-* 9,10:00", "Mon..Wed,Fri *-*-* 09,10:00:00"),
            ("Sat,Sun 2029-4/4-13..17 03:31,47:05..10", "Sat,Sun 2029-04/4-13..17 03:31,47:05..10"),
            ("*-*-* 4/6:00", "*-*-* 04/6:00:00"),
            ("*:2:0/2.5", "*-*-* *:02:00/2.500000"),
            ("27-1-1", "2027-01-01 00:00:00"),
            ("Mon-Wed,Tue 12:00 Europe/Berlin", "Mon..Wed *-*-* 12:00:00 Europe/Berlin"),
            ("*-*-* 1..7/2:00 UTC", "*-*-* 01..07/2:00:00 UTC"),
        ])
    func normalized(_ input: String, _ expected: String) {
        #expect(Fixture.calendar(input).normalized == expected)
        // The store keeps the normal form alone, and schedules share a rule by it.
        #expect(Fixture.calendar(expected) == Fixture.calendar(input), "the normal form parses to the same expression")
    }

    @Test(
        "bad expressions are refused with the field at fault",
        arguments: [
            ("*-*-* 25:00", "hour"), ("*-13-01", "month"), ("*-*-* 18/6:00", "hour"), ("Mon..Sun..Tue", "weekday"),
            ("*-02-30", "day"), ("Mon 2027-03-02", "weekday"), ("*-*-* 12:00 Europe/Nowhere", "zone"),
            ("1969-01-01", "year"), ("*-*~29", "day"),
        ])
    func refused(_ input: String, _ field: String) {
        do {
            _ = try CalendarSpec(parsing: input) { (try? ZoneDatabase().zone(named: $0)) != nil }
            Issue.record("\(input) was accepted")
        } catch {
            #expect(error.field == field, "\(input): \(error.message)")
        }
    }

    @Test("an hour field over several hours repeats; a single hour does not")
    func repeatsHour() {
        #expect(Fixture.calendar("*:00").repeatsHour)
        #expect(Fixture.calendar("0/4:30").repeatsHour)
        #expect(!Fixture.calendar("02:30").repeatsHour)
        #expect(!Fixture.calendar("daily").repeatsHour)
    }
}
