import Testing
@testable import ReqdCalendar

@Suite("Cron expressions")
struct CronSpecTests {
    @Test("fields, names, steps and @ names")
    func parses() throws {
        let weekdays = try CronSpec(parsing: "*/15 9-17 * * mon-fri")
        #expect(weekdays.minutes == (1 << 0 | 1 << 15 | 1 << 30 | 1 << 45))
        #expect(weekdays.hours == 0b11_1111_1110_0000_0000)
        #expect(weekdays.weekdays == 0b011_1110)
        #expect(try CronSpec(parsing: "@daily").normalized == "0 0 * * *")
        #expect(try CronSpec(parsing: "0 0 * * 7").weekdays == 1)
    }

    @Test("when both day fields restrict, a day matching either elapses")
    func dayOr() throws {
        let spec = try CronSpec(parsing: "0 12 13 * fri")
        let from = CivilTime(year: 2027, month: 8, day: 1)
        // Friday 2027-08-06, then the 13th (also a Friday), then Friday the 20th.
        var found: [Int] = []
        var at = from
        for _ in 0..<3 {
            guard let match = spec.firstMatch(atOrAfter: at) else { break }
            found.append(match.day)
            at = CivilTime(localMicroseconds: match.localMicroseconds + 1)
        }
        #expect(found == [6, 13, 20])
    }

    @Test("bad fields are refused naming them", arguments: [
        ("60 * * * *", "minute"), ("* 24 * * *", "hour"), ("* * 0 * *", "day of month"), ("* * * 13 *", "month"),
        ("* * * * 8", "day of week"), ("* * 30 feb *", "day of month"), ("5-1 * * * *", "minute"),
    ])
    func refused(_ input: String, _ field: String) {
        do {
            _ = try CronSpec(parsing: input)
            Issue.record("\(input) was accepted")
        } catch {
            #expect(error.field == field, "\(input): \(error.message)")
        }
        #expect(throws: CalendarError.self) { try CronSpec(parsing: "* * * *") }
        #expect(throws: CalendarError.self) { try CronSpec(parsing: "@reboot") }
    }
}
