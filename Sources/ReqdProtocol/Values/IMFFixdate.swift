import ReqdCalendar

/// The HTTP date form servers send (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 IMF-fixdate), read
/// and written exactly, for `HeaderLines` to hold a `Date`, `Last-Modified` or `Expires` value in 5 bytes.
///
/// `seconds(of:)` takes only the canonical spelling that `text(seconds:)` writes back, weekday
/// included, so a value read is always written back byte for byte; anything else stays text.
enum IMFFixdate {
    /// How many bytes the form has.
    static let length = 29
    /// The most seconds since the epoch held: the last second of year 9999, past which the year
    /// would take a fifth digit.
    static let maxSeconds: Int64 = 253_402_300_799

    private static let weekdays: [[UInt8]] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"].map { Array($0.utf8) }
    private static let months: [[UInt8]] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }

    /// Seconds since the epoch of `bytes` in the canonical form, from 1970 to 9999; nil for
    /// anything else.
    static func seconds<Bytes: RandomAccessCollection<UInt8>>(of bytes: Bytes) -> Int64? where Bytes.Index == Int {
        guard bytes.count == length else { return nil }
        let base = bytes.startIndex
        func byte(_ at: Int) -> UInt8 { bytes[base + at] }
        func number(_ at: Int, _ digits: Int) -> Int? {
            var value = 0
            for index in at..<at + digits {
                let digit = byte(index) &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func word(_ at: Int, in names: [[UInt8]]) -> Int? {
            names.firstIndex { $0[0] == byte(at) && $0[1] == byte(at + 1) && $0[2] == byte(at + 2) }
        }
        guard byte(3) == UInt8(ascii: ","), byte(4) == 32, byte(7) == 32, byte(11) == 32, byte(16) == 32,
            byte(19) == UInt8(ascii: ":"), byte(22) == UInt8(ascii: ":"), byte(25) == 32, byte(26) == UInt8(ascii: "G"),
            byte(27) == UInt8(ascii: "M"), byte(28) == UInt8(ascii: "T"),
            let day = number(5, 2), let month = word(8, in: months), let year = number(12, 4),
            let hour = number(17, 2), let minute = number(20, 2), let second = number(23, 2),
            year >= 1970, (1...CivilTime.daysIn(month: month + 1, year: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilTime.days(year: year, month: month + 1, day: day)
        guard word(0, in: weekdays) == days % 7 else { return nil }
        return Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
    }

    /// The canonical text of `seconds` since the epoch (0 to `maxSeconds`).
    static func text(seconds: Int64) -> String {
        let days = Int(seconds / 86_400)
        let time = Int(seconds % 86_400)
        let (year, month, day) = CivilTime.date(fromDays: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = String(decoding: weekdays[days % 7], as: UTF8.self)
        let monthName = String(decoding: months[month - 1], as: UTF8.self)
        return "\(weekday), \(two(day)) \(monthName) \(year) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }
}
