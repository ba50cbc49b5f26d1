@testable import ReqdCalendar

/// Zones from the system's tzdata, and instants written as UTC text.
enum Fixture {
    static func zone(_ name: String) -> ZoneRules {
        do { return try ZoneDatabase().zone(named: name) } catch { fatalError("\(name): \(error)") }
    }

    /// `2027-03-28T01:00:00Z` in microseconds since the epoch.
    static func utc(_ text: String) -> Int64 {
        do { return try InstantText.parse(text, in: .utc) } catch { fatalError("\(text): \(error)") }
    }

    static func calendar(_ text: String) -> CalendarSpec {
        do { return try CalendarSpec(parsing: text) { (try? ZoneDatabase().zone(named: $0)) != nil } } catch {
            fatalError("\(text): \(error)")
        }
    }

    /// The next `count` elapses after `from`, as UTC text.
    static func elapses(_ pattern: any CivilPattern, in zone: String, from: String, count: Int) -> [String] {
        Recurrence(pattern: pattern, zone: Fixture.zone(zone)).elapses(after: utc(from), count: count).map(InstantText.utc)
    }
}
