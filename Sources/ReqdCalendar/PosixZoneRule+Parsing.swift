extension PosixZoneRule {
    /// Parses a POSIX `TZ` string; nil when it is not one.
    init?(_ text: String) {
        var scanner = ByteScanner(Array(text.utf8))
        guard let standardName = scanner.zoneName(), let standardOffset = scanner.signedTime() else { return nil }
        standard = LocalTimeType(offset: -standardOffset, isDST: false, abbreviation: standardName)
        guard !scanner.isAtEnd else { return }
        guard let daylightName = scanner.zoneName() else { return nil }
        var daylightOffset = standard.offset + 3600
        if let byte = scanner.peek, byte != UInt8(ascii: ",") {
            guard let offset = scanner.signedTime() else { return nil }
            daylightOffset = -offset
        }
        daylight = LocalTimeType(offset: daylightOffset, isDST: true, abbreviation: daylightName)
        guard !scanner.isAtEnd else { return }
        guard scanner.take(","), let start = scanner.change(), scanner.take(","), let end = scanner.change(),
            scanner.isAtEnd
        else { return nil }
        self.start = start
        self.end = end
    }
}

extension ByteScanner {
    /// A POSIX rule's change: `Jn`, `n` or `Mm.w.d`, then `/time`.
    mutating func change() -> PosixZoneRule.Change? {
        let day: PosixZoneRule.Day
        if take("J") {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julian(n)
        } else if take("M") {
            guard let month = number(), take("."), let week = number(), take("."), let weekday = number(),
                (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeek(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time = 7200
        if take("/") {
            guard let value = signedTime() else { return nil }
            time = value
        }
        return PosixZoneRule.Change(day: day, time: time)
    }
}
