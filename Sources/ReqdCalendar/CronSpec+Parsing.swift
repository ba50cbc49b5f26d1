extension CronSpec {
    /// Parses five fields, or `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`.
    public init(parsing text: String) throws(CalendarError) {
        var source = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if source.count == 1, let name = source.first, name.hasPrefix("@") {
            switch name.lowercased() {
            case "@yearly", "@annually": source = ["0", "0", "1", "1", "*"]
            case "@monthly": source = ["0", "0", "1", "*", "*"]
            case "@weekly": source = ["0", "0", "*", "*", "0"]
            case "@daily", "@midnight": source = ["0", "0", "*", "*", "*"]
            case "@hourly": source = ["0", "*", "*", "*", "*"]
            default: throw CalendarError(.badExpression, "bad cron expression: unknown name \(name)")
            }
        }
        guard source.count == 5 else {
            throw CalendarError(.badExpression, "bad cron expression: expected 5 fields (minute hour day month weekday), got \(source.count)")
        }
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
        let minute = try Self.field(source[0], name: "minute", range: 0...59)
        let hour = try Self.field(source[1], name: "hour", range: 0...23)
        let day = try Self.field(source[2], name: "day of month", range: 1...31)
        let month = try Self.field(source[3], name: "month", range: 1...12, names: months, nameBase: 1)
        let weekday = try Self.field(source[4], name: "day of week", range: 0...7, names: weekdays, nameBase: 0)
        minutes = minute.bits
        hours = UInt32(hour.bits)
        days = UInt32(day.bits)
        self.months = UInt16(month.bits)
        self.weekdays = UInt8((weekday.bits | (weekday.bits >> 7)) & 0x7F)
        daysRestricted = days != 0xFFFF_FFFE
        weekdaysRestricted = self.weekdays != 0x7F
        fields = [minute.text, hour.text, day.text, month.text, weekday.text]
        if firstMatch(atOrAfter: CivilTime(year: 2000, month: 1, day: 1)) == nil {
            throw CalendarError(.neverElapses, field: "day of month", "cron expression never elapses: day \(day.text) never occurs in month \(month.text)")
        }
    }

    /// One field: `*`, values, ranges `a-b`, steps `*/n`, `a/n`, `a-b/n`, lists of these, and names.
    private static func field(
        _ text: String, name: String, range: ClosedRange<Int>, names: [String] = [], nameBase: Int = 0
    ) throws(CalendarError) -> (bits: UInt64, text: String) {
        func bad(_ why: String) -> CalendarError {
            CalendarError(.badExpression, field: name, "bad cron expression: \(name) \"\(text)\": \(why)")
        }
        func value(_ word: Substring) throws(CalendarError) -> Int {
            if let index = names.firstIndex(of: word.lowercased()) { return index + nameBase }
            guard !word.isEmpty, word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), word.count <= 4, let number = Int(word) else {
                throw bad("\(word) is not a number")
            }
            guard range.contains(number) else { throw bad("\(number) is outside \(range.lowerBound)-\(range.upperBound)") }
            return number
        }
        var bits: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw bad("more than one /") }
            var step = 1
            if parts.count == 2 {
                guard let number = Int(parts[1]), parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), number > 0, number <= range.upperBound + 1 else {
                    throw bad("bad step \(parts[1])")
                }
                step = number
            }
            var low = range.lowerBound
            var high = range.upperBound == 7 ? 6 : range.upperBound
            if parts[0] != "*" {
                let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count <= 2 else { throw bad("bad range \(parts[0])") }
                low = try value(bounds[0])
                high = bounds.count == 2 ? try value(bounds[1]) : (parts.count == 2 ? (range.upperBound == 7 ? 6 : range.upperBound) : low)
                guard low <= high else { throw bad("range \(parts[0]) runs backwards") }
            }
            for number in stride(from: low, through: high, by: step) { bits |= 1 << number }
        }
        return (bits, text.lowercased())
    }
}
