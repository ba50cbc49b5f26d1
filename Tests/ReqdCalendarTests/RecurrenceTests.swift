import Testing
@testable import ReqdCalendar

@Suite("Elapses across clock changes: never a lost run, never a double run")
struct RecurrenceTests {
    @Test("a fixed time in Berlin's 2027 spring gap fires once, when the gap ends")
    func berlinSpringFixed() {
        #expect(
            Fixture.elapses(Fixture.calendar("*-*-* 02:30"), in: "Europe/Berlin", from: "2027-03-27T00:00:00Z", count: 3)
                == ["2027-03-27T01:30:00Z", "2027-03-28T01:00:00Z", "2027-03-29T00:30:00Z"])
    }

    @Test("a fixed time Berlin's 2027 fall-back repeats fires once, at its first occurrence")
    func berlinAutumnFixed() {
        #expect(
            Fixture.elapses(Fixture.calendar("*-*-* 02:30"), in: "Europe/Berlin", from: "2027-10-30T00:00:00Z", count: 3)
                == ["2027-10-30T00:30:00Z", "2027-10-31T00:30:00Z", "2027-11-01T01:30:00Z"])
    }

    @Test("hourly fires on every real hour: none lost in spring, both 02:00s in autumn")
    func berlinHourly() {
        #expect(
            Fixture.elapses(Fixture.calendar("hourly"), in: "Europe/Berlin", from: "2027-03-27T23:30:00Z", count: 3)
                == ["2027-03-28T00:00:00Z", "2027-03-28T01:00:00Z", "2027-03-28T02:00:00Z"])
        #expect(
            Fixture.elapses(Fixture.calendar("hourly"), in: "Europe/Berlin", from: "2027-10-30T23:30:00Z", count: 3)
                == ["2027-10-31T00:00:00Z", "2027-10-31T01:00:00Z", "2027-10-31T02:00:00Z"])
    }

    @Test("New York's 2027 changes, by cron: 02:30 in the gap, 01:30 repeated, and every 30 minutes")
    func newYork() throws {
        #expect(
            Fixture.elapses(try CronSpec(parsing: "30 2 * * *"), in: "America/New_York", from: "2027-03-13T12:00:00Z", count: 2)
                == ["2027-03-14T07:00:00Z", "2027-03-15T06:30:00Z"])
        #expect(
            Fixture.elapses(try CronSpec(parsing: "30 1 * * *"), in: "America/New_York", from: "2027-11-06T12:00:00Z", count: 2)
                == ["2027-11-07T05:30:00Z", "2027-11-08T06:30:00Z"])
        let halfHourly = try CronSpec(parsing: "*/30 * * * *")
        // 01:00, 01:30 EDT, then 01:00, 01:30 EST again, then 02:00 EST.
        #expect(
            Fixture.elapses(halfHourly, in: "America/New_York", from: "2027-11-07T04:45:00Z", count: 5)
                == ["2027-11-07T05:00:00Z", "2027-11-07T05:30:00Z", "2027-11-07T06:00:00Z", "2027-11-07T06:30:00Z", "2027-11-07T07:00:00Z"])
    }

    @Test("a 30-minute change in Lord Howe: a fixed time in the gap fires when it ends")
    func lordHowe() {
        #expect(
            Fixture.elapses(Fixture.calendar("*-*-* 02:15"), in: "Australia/Lord_Howe", from: "2027-10-01T12:00:00Z", count: 2)
                == ["2027-10-01T15:45:00Z", "2027-10-02T15:30:00Z"])
    }

    @Test("fractional seconds elapse at their fraction, to the microsecond, across minutes and a zone's change")
    func fractions() {
        let second: Int64 = 1_000_000
        let everyTwoAndAHalf = Recurrence(pattern: Fixture.calendar("*:*:0/2.5"), zone: Fixture.zone("UTC"))
        let minute = Fixture.utc("2027-01-15T08:00:00Z")
        #expect(
            everyTwoAndAHalf.elapses(after: minute + 55 * second, count: 4).map { $0 - minute }
                == [57 * second + 500_000, 60 * second, 62 * second + 500_000, 65 * second])
        // After an instant between two elapses, and on one: the next is the one after it.
        #expect(everyTwoAndAHalf.next(after: minute + 2 * second + 499_999) == minute + 2 * second + 500_000)
        #expect(everyTwoAndAHalf.next(after: minute + 2 * second + 500_000) == minute + 5 * second)
        let odd = Recurrence(pattern: Fixture.calendar("*:*:05.123456"), zone: Fixture.zone("UTC"))
        #expect(odd.elapses(after: minute, count: 2).map { $0 - minute } == [5 * second + 123_456, 65 * second + 123_456])
        // Berlin's spring gap: 02:30:00.25 falls in it and fires once, as the gap ends (01:00:00Z).
        let gap = Recurrence(pattern: Fixture.calendar("*-*-* 02:30:00.25"), zone: Fixture.zone("Europe/Berlin"))
        #expect(gap.elapses(after: Fixture.utc("2027-03-27T12:00:00Z"), count: 2)
            == [Fixture.utc("2027-03-28T01:00:00Z"), Fixture.utc("2027-03-29T00:30:00Z") + 250_000])
    }

    @Test("an expression whose years are past has no next elapse")
    func ends() {
        #expect(Fixture.elapses(Fixture.calendar("2027-01-01 00:00"), in: "UTC", from: "2027-01-01T00:00:00Z", count: 1).isEmpty)
        #expect(
            Fixture.elapses(Fixture.calendar("2027-01-01 00:00"), in: "UTC", from: "2026-12-31T00:00:00Z", count: 2)
                == ["2027-01-01T00:00:00Z"])
    }
}
