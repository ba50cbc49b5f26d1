import ReqdCalendar
import ReqdProtocol

/// Reads the HTTP date of a `Retry-After` header (RFC 9110 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date as wall time, or nil when it is not an IMF-fixdate of a year from 1 to 9999. A
    /// date before 1970 reads as the epoch and one past 2262 as the last nanosecond a `WallTime`
    /// holds: either way the wait it asks for is capped, and a target's header never overflows it.
    static func parse(_ text: String) -> WallTime? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: parts[2].lowercased()), let year = Int(parts[3]), (1...9_999).contains(year)
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (0..<24).contains(time[0]), (0..<60).contains(time[1]),
            (0...60).contains(time[2])
        else { return nil }
        let days = CivilTime.days(year: year, month: month + 1, day: day)
        let seconds = Int64(days) * 86_400 + Int64(time[0] * 3_600 + time[1] * 60 + time[2])
        guard seconds > 0 else { return WallTime(nanosecondsSinceEpoch: 0) }
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return WallTime(nanosecondsSinceEpoch: overflow ? .max : nanoseconds)
    }
}
