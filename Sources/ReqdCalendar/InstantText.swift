/// Instants as text: RFC 3339 in UTC for machines, the zone's wall clock for people, and the
/// forms a `--from` option takes.
public enum InstantText {
    /// `2027-03-28T01:00:00Z`, with `.ffffff` when the second has a fraction.
    public static func utc(_ instant: Int64) -> String {
        let civil = CivilTime(localMicroseconds: instant)
        return civil.description.replacingSpace(with: "T") + "Z"
    }

    /// `Sun 2027-03-28 03:00:00 CEST`: the wall clock in `zone`, with the weekday and abbreviation.
    public static func local(_ instant: Int64, in zone: ZoneRules) -> String {
        let type = zone.localTimeType(at: instant.floorDivided(by: 1_000_000))
        let civil = CivilTime(localMicroseconds: instant + Int64(type.offset) * 1_000_000)
        let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][civil.weekday]
        return "\(weekday) \(civil) \(type.abbreviation)"
    }

    /// Reads `@SECONDS`, `YYYY-MM-DDTHH:MM[:SS[.f]]Z`, `YYYY-MM-DD HH:MM[:SS[.f]] UTC`, or the same
    /// without a zone, taken as a wall-clock time in `zone` (its first occurrence when repeated).
    public static func parse(_ text: String, in zone: ZoneRules) throws(CalendarError) -> Int64 {
        let bad = CalendarError(.badTime, "bad time \"\(text)\": use @SECONDS, 2027-03-28T01:00:00Z or 2027-03-28 03:00:00")
        var scanner = ByteScanner(Array(text.utf8))
        if scanner.take("@") {
            guard let seconds = scanner.number(), scanner.isAtEnd else { throw bad }
            return Int64(seconds) * 1_000_000
        }
        guard let year = scanner.number(), scanner.take("-"), let month = scanner.number(), scanner.take("-"),
            let day = scanner.number(), scanner.take("T") || scanner.take(" "), let hour = scanner.number(),
            scanner.take(":"), let minute = scanner.number()
        else { throw bad }
        var microsecond = 0
        if scanner.take(":") {
            guard let second = scanner.number() else { throw bad }
            microsecond = second * 1_000_000
            if scanner.take(".") {
                var scale = 100_000
                while let byte = scanner.peek, byte >= 0x30, byte <= 0x39 {
                    microsecond += Int(byte - 0x30) * scale
                    scale /= 10
                    scanner.index += 1
                }
            }
        }
        guard (1...12).contains(month), (1...CivilTime.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, microsecond < 60_000_000
        else { throw bad }
        let local = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, microsecond: microsecond).localMicroseconds
        let rest = String(decoding: scanner.bytes[scanner.index...], as: UTF8.self)
        switch rest {
        case "Z", " UTC", " utc": return local
        case "":
            switch zone.resolve(localMicroseconds: local) {
            case .unique(let instant), .repeated(let instant, _), .skipped(gapEnd: let instant): return instant
            }
        default: throw bad
        }
    }
}

extension String {
    fileprivate func replacingSpace(with replacement: Character) -> String {
        String(map { $0 == " " ? replacement : $0 })
    }
}
