extension CalendarSpec {
    /// Parses an `OnCalendar=` expression. `isZone` says whether a trailing word names a time zone.
    public init(parsing text: String, isZone: (String) -> Bool) throws(CalendarError) {
        var body = Substring(text)
        while body.first == " " { body.removeFirst() }
        while body.last == " " { body.removeLast() }
        second = [CalendarComponent(start: 0)]
        if body.count > 4, body.suffix(4).lowercased() == " utc" {
            zone = "UTC"
            body = body.dropLast(4)
        } else if let space = body.lastIndex(of: " ") {
            let word = String(body[body.index(after: space)...])
            if isZone(word) {
                zone = word
                body = body[..<space]
            } else if word.contains("/"), word.first?.isLetter == true {
                throw CalendarError(.unknownZone, field: "zone", "unknown time zone \(word)")
            }
        }
        while body.last == " " { body.removeLast() }
        guard !body.isEmpty else { throw CalendarError(.badExpression, "empty calendar expression") }
        if try !applyShorthand(body.lowercased()) {
            var scanner = ByteScanner(Array(body.utf8))
            try parseWeekdays(&scanner)
            if try !parseDate(&scanner) { try parseTime(&scanner) }
            guard scanner.isAtEnd else { throw Self.bad("unexpected text at \(scanner.index + 1)") }
        }
        normalize()
        try validate()
        try checkElapses()
    }

    /// Refuses an expression no date can match (`*-02-30`), naming the field that rules it out.
    private func checkElapses() throws(CalendarError) {
        let epoch = CivilTime(year: 1970, month: 1, day: 1)
        guard firstMatch(atOrAfter: epoch) == nil else { return }
        var relaxed = self
        relaxed.weekdays = nil
        if relaxed.firstMatch(atOrAfter: epoch) != nil {
            throw CalendarError(.neverElapses, field: "weekday", "calendar expression never elapses: no date it names falls on its weekdays")
        }
        relaxed.day = nil
        relaxed.endOfMonth = false
        if relaxed.firstMatch(atOrAfter: epoch) != nil {
            throw CalendarError(.neverElapses, field: "day", "calendar expression never elapses: no month it names has its days")
        }
        throw CalendarError(.neverElapses, field: "year", "calendar expression never elapses: no year it names has its dates")
    }

    private static func bad(_ message: String, field: String? = nil) -> CalendarError {
        CalendarError(.badExpression, field: field, "bad calendar expression: \(message)")
    }

    private mutating func applyShorthand(_ word: String) throws(CalendarError) -> Bool {
        let zero = [CalendarComponent(start: 0)]
        let one = [CalendarComponent(start: 1)]
        switch word {
        case "minutely": break
        case "hourly": minute = zero
        case "daily": (hour, minute) = (zero, zero)
        case "weekly": (weekdays, hour, minute) = (1, zero, zero)
        case "monthly": (day, hour, minute) = (one, zero, zero)
        case "annually", "yearly", "anually": (month, day, hour, minute) = (one, one, zero, zero)
        case "quarterly": (month, day, hour, minute) = ([1, 4, 7, 10].map { CalendarComponent(start: $0) }, one, zero, zero)
        case "semiannually", "semi-annually", "biannually", "bi-annually":
            (month, day, hour, minute) = ([1, 7].map { CalendarComponent(start: $0) }, one, zero, zero)
        default: return false
        }
        return true
    }

    private mutating func parseWeekdays(_ scanner: inout ByteScanner) throws(CalendarError) {
        let names = ["monday", "mon", "tuesday", "tue", "wednesday", "wed", "thursday", "thu", "friday", "fri",
            "saturday", "sat", "sunday", "sun"].map { Array($0.utf8) }
        var bits: UInt8 = 0
        var rangeFrom: Int?
        var first = true
        while true {
            let rest = scanner.bytes[scanner.index...]
            guard let match = names.indices.first(where: { index in
                rest.count >= names[index].count
                    && zip(rest, names[index]).allSatisfy { $0 | 0x20 == $1 }
            }) else {
                if first { return }
                throw Self.bad("expected a weekday at \(scanner.index + 1)", field: "weekday")
            }
            let number = match / 2
            scanner.index += names[match].count
            if let byte = scanner.peek, ![UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " ")].contains(byte) {
                throw Self.bad("expected a weekday at \(scanner.index + 1 - names[match].count)", field: "weekday")
            }
            bits |= 1 << number
            if let from = rangeFrom {
                guard from <= number else { throw Self.bad("weekday range runs backwards", field: "weekday") }
                for day in from...number { bits |= 1 << day }
                rangeFrom = nil
            }
            first = false
            if scanner.isAtEnd { break }
            if scanner.take(" ") {
                while scanner.take(" ") {}
                break
            }
            if scanner.take(".") {
                guard rangeFrom == nil, scanner.take(".") else { throw Self.bad("bad weekday range", field: "weekday") }
                rangeFrom = number
            } else if scanner.take("-") {
                rangeFrom = number
            } else if scanner.take(",") {
                if scanner.isAtEnd || scanner.peek == UInt8(ascii: " ") {
                    while scanner.take(" ") {}
                    break
                }
            }
        }
        guard rangeFrom == nil else { throw Self.bad("open weekday range", field: "weekday") }
        weekdays = bits
    }

    /// The date part; true when it was `@SECONDS`, which also sets the time.
    private mutating func parseDate(_ scanner: inout ByteScanner) throws(CalendarError) -> Bool {
        guard !scanner.isAtEnd else { return false }
        if scanner.take("@") {
            guard let seconds = scanner.number() else { throw Self.bad("expected seconds after @") }
            let civil = CivilTime(localMicroseconds: Int64(seconds) * 1_000_000)
            (year, month, day) = ([.init(start: civil.year)], [.init(start: civil.month)], [.init(start: civil.day)])
            (hour, minute, second) = ([.init(start: civil.hour)], [.init(start: civil.minute)], [.init(start: civil.microsecond)])
            zone = "UTC"
            return true
        }
        let start = scanner.index
        let first = try Self.chain(&scanner, microseconds: false, field: "date")
        if scanner.isAtEnd || scanner.peek == UInt8(ascii: ":") {
            scanner.index = start
            return false
        }
        if scanner.take("~") { endOfMonth = true } else if !scanner.take("-") { throw Self.bad("expected - in the date", field: "date") }
        let second = try Self.chain(&scanner, microseconds: false, field: "date")
        if scanner.isAtEnd || scanner.peek == UInt8(ascii: " ") {
            while scanner.take(" ") {}
            (month, day) = (first, second)
            return false
        }
        guard !endOfMonth else { throw Self.bad("~ goes between month and day", field: "day") }
        if scanner.take("~") { endOfMonth = true } else if !scanner.take("-") { throw Self.bad("expected - in the date", field: "date") }
        let third = try Self.chain(&scanner, microseconds: false, field: "day")
        guard scanner.isAtEnd || scanner.peek == UInt8(ascii: " ") else { throw Self.bad("unexpected text after the date", field: "date") }
        while scanner.take(" ") {}
        (year, month, day) = (first, second, third)
        return false
    }

    private mutating func parseTime(_ scanner: inout ByteScanner) throws(CalendarError) {
        guard !scanner.isAtEnd else {
            (hour, minute, second) = ([.init(start: 0)], [.init(start: 0)], [.init(start: 0)])
            return
        }
        hour = try Self.chain(&scanner, microseconds: false, field: "hour")
        guard scanner.take(":") else { throw Self.bad("expected : after the hour", field: "hour") }
        minute = try Self.chain(&scanner, microseconds: false, field: "minute")
        if scanner.isAtEnd {
            second = [.init(start: 0)]
            return
        }
        guard scanner.take(":") else { throw Self.bad("expected : after the minute", field: "minute") }
        second = try Self.chain(&scanner, microseconds: true, field: "second") ?? []
    }

    /// A field's list; nil for `*` (for seconds, `*` is every whole second).
    private static func chain(_ scanner: inout ByteScanner, microseconds: Bool, field: String) throws(CalendarError) -> [CalendarComponent]? {
        if scanner.take("*") {
            return microseconds ? [CalendarComponent(start: 0, step: microsecondsPerSecond)] : nil
        }
        var components: [CalendarComponent] = []
        repeat {
            guard components.count < 240 else { throw bad("too many items", field: field) }
            let start = try decimal(&scanner, microseconds: microseconds, field: field)
            var component = CalendarComponent(start: start)
            if scanner.peek == UInt8(ascii: "."), scanner.index + 1 < scanner.bytes.count,
                scanner.bytes[scanner.index + 1] == UInt8(ascii: ".")
            {
                scanner.index += 2
                component.stop = try decimal(&scanner, microseconds: microseconds, field: field)
                component.step = microseconds ? microsecondsPerSecond : 1
            }
            if scanner.take("/") {
                component.step = try decimal(&scanner, microseconds: microseconds, field: field)
                guard component.step > 0 else { throw bad("a repetition of 0", field: field) }
            }
            if let byte = scanner.peek, ![UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"), UInt8(ascii: ":")].contains(byte) {
                throw bad("unexpected \(Character(Unicode.Scalar(byte))) in the \(field)", field: field)
            }
            components.append(component)
        } while scanner.take(",")
        return components
    }

    private static func decimal(_ scanner: inout ByteScanner, microseconds: Bool, field: String) throws(CalendarError) -> Int {
        guard let value = scanner.number(), value <= Int(Int32.max) / (microseconds ? microsecondsPerSecond : 1) else {
            throw bad("expected a number in the \(field)", field: field)
        }
        guard microseconds else { return value }
        var result = value * microsecondsPerSecond
        if scanner.peek == UInt8(ascii: "."), scanner.index + 1 < scanner.bytes.count,
            scanner.bytes[scanner.index + 1] != UInt8(ascii: ".")
        {
            scanner.index += 1
            var scale = microsecondsPerSecond / 10
            var digits = 0
            while let byte = scanner.peek, byte >= 0x30, byte <= 0x39 {
                if digits < 6 { result += Int(byte - 0x30) * scale }
                scale /= 10
                digits += 1
                scanner.index += 1
            }
            guard digits > 0 else { throw bad("expected digits after the decimal point", field: field) }
        }
        return result
    }

    /// What systemd does after parsing: two-digit years, sorted lists without repeats, ranges cut
    /// to a whole number of steps.
    private mutating func normalize() {
        if let bits = weekdays, bits == 0 || bits >= 127 { weekdays = nil }
        if endOfMonth, day == nil { endOfMonth = false }
        year = year.map { components in
            components.map { component in
                var fixed = component
                for keyPath in [\CalendarComponent.start, \CalendarComponent.stop] {
                    let value = fixed[keyPath: keyPath]
                    if value >= 0, value < 70 { fixed[keyPath: keyPath] += 2000 } else if value >= 70, value < 100 { fixed[keyPath: keyPath] += 1900 }
                }
                return fixed
            }
        }
        func normalized(_ components: [CalendarComponent]?) -> [CalendarComponent]? {
            components.map { list in
                Array(Set(list.map { component in
                    var cut = component
                    if cut.stop > cut.start, cut.step > 0 { cut.stop -= (cut.stop - cut.start) % cut.step }
                    return cut
                })).sorted()
            }
        }
        (year, month, day, hour, minute) = (normalized(year), normalized(month), normalized(day), normalized(hour), normalized(minute))
        second = normalized(second) ?? []
    }

    private func validate() throws(CalendarError) {
        let fields: [(String, [CalendarComponent]?, ClosedRange<Int>, Bool)] = [
            ("year", year, 1970...2199, false), ("month", month, 1...12, false), ("day", day, 1...31, endOfMonth),
            ("hour", hour, 0...23, false), ("minute", minute, 0...59, false), ("second", second, 0...59_999_999, false),
        ]
        for (name, components, range, fromEnd) in fields {
            let to = fromEnd ? range.upperBound - 3 : range.upperBound
            for component in components ?? [] {
                let scale = name == "second" ? Self.microsecondsPerSecond : 1
                let shown = "\(component.start / scale)"
                guard component.start >= range.lowerBound, component.start <= to,
                    component.step <= to - range.lowerBound
                else { throw Self.bad("\(name) \(shown) is out of range", field: name) }
                if component.stop >= 0 {
                    guard component.stop >= range.lowerBound, component.stop <= to, component.start + component.step <= component.stop else {
                        throw Self.bad("\(name) range from \(shown) is out of range or empty", field: name)
                    }
                } else if fromEnd ? component.start - component.step < range.lowerBound : component.start + component.step > to {
                    throw Self.bad("\(name) repetition from \(shown) never repeats", field: name)
                }
            }
        }
    }
}
