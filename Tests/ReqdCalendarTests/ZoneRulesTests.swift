import Testing
@testable import ReqdCalendar

@Suite("Zones read from the system's TZif files")
struct ZoneRulesTests {
    @Test("Berlin changes its clocks at 01:00 UTC on the last Sundays of March and October 2027")
    func berlin2027() {
        let berlin = Fixture.zone("Europe/Berlin")
        let changes = berlin.transitions(from: Fixture.utc("2027-01-01T00:00:00Z") / 1_000_000, through: Fixture.utc("2028-01-01T00:00:00Z") / 1_000_000)
        #expect(changes.map { InstantText.utc($0.at * 1_000_000) } == ["2027-03-28T01:00:00Z", "2027-10-31T01:00:00Z"])
        #expect(changes.map(\.after.abbreviation) == ["CEST", "CET"])
        #expect(berlin.localTimeType(at: Fixture.utc("2027-07-01T00:00:00Z") / 1_000_000).offset == 7200)
    }

    @Test("a wall-clock time resolves to one instant, two at a fall-back, or the end of a gap")
    func resolution() {
        let berlin = Fixture.zone("Europe/Berlin")
        func local(_ text: String) -> Int64 { Fixture.utc(text) }
        #expect(berlin.resolve(localMicroseconds: local("2027-03-28T02:30:00Z")) == .skipped(gapEnd: Fixture.utc("2027-03-28T01:00:00Z")))
        #expect(
            berlin.resolve(localMicroseconds: local("2027-10-31T02:30:00Z"))
                == .repeated(Fixture.utc("2027-10-31T00:30:00Z"), Fixture.utc("2027-10-31T01:30:00Z")))
        #expect(berlin.resolve(localMicroseconds: local("2027-06-01T12:00:00Z")) == .unique(Fixture.utc("2027-06-01T10:00:00Z")))
    }

    @Test("Lord Howe moves its clocks by 30 minutes; Kolkata never moves them")
    func halfHourAndNone() {
        let lordHowe = Fixture.zone("Australia/Lord_Howe")
        #expect(
            lordHowe.resolve(localMicroseconds: Fixture.utc("2027-10-03T02:15:00Z")) == .skipped(gapEnd: Fixture.utc("2027-10-02T15:30:00Z")))
        let kolkata = Fixture.zone("Asia/Kolkata")
        #expect(kolkata.transitions(from: 0, through: 5_000_000_000).isEmpty)
        #expect(kolkata.localTimeType(at: 4_000_000_000).offset == 19_800)
    }

    @Test("past the file's last listed change, the POSIX rule at its end gives the changes")
    func posixRuleBeyondTable() {
        let berlin = Fixture.zone("Europe/Berlin")
        let from = Fixture.utc("2100-01-01T00:00:00Z") / 1_000_000
        let changes = berlin.transitions(from: from, through: from + 366 * 86_400)
        // The last Sundays of March and October 2100 are the 28th and the 31st.
        #expect(changes.map { InstantText.utc($0.at * 1_000_000) } == ["2100-03-28T01:00:00Z", "2100-10-31T01:00:00Z"])
        let rule = PosixZoneRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(rule?.standard.offset == 37_800 && rule?.daylight?.offset == 39_600)
        #expect(PosixZoneRule("EST5EDT,M3.2.0,M11.1.0")?.transitions(inYear: 2027).map { InstantText.utc($0.at * 1_000_000) }
            == ["2027-03-14T07:00:00Z", "2027-11-07T06:00:00Z"])
        #expect(PosixZoneRule("<-03>3")?.daylight == nil)
        #expect(PosixZoneRule("X1") == nil)
    }

    @Test("names that could leave the zoneinfo directory, or that name no zone, are refused")
    func badNames() {
        let database = ZoneDatabase()
        for name in ["../../etc/passwd", "/etc/localtime", "Europe/../../x", "Europe/Nowhere", ""] {
            #expect(throws: CalendarError.self) { try database.zone(named: name) }
        }
        #expect(throws: CalendarError.self) { try ZoneRules(name: "x", tzif: Array("not a zone file at all, no".utf8)) }
        #expect(database.localZone(environmentTZ: ":America/New_York").name == "America/New_York")
        #expect(database.localZone(environmentTZ: "UTC").name == "UTC")
    }
}
