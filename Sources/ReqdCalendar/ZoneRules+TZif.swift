extension ZoneRules {
    /// Reads a TZif file (RFC 8536, versions 1 to 4): its 64-bit transitions when it has them, and
    /// the POSIX rule at its end for the years after.
    public convenience init(name: String, tzif bytes: [UInt8]) throws(CalendarError) {
        func bad() -> CalendarError { CalendarError(.unknownZone, "\(name) is not a TZif file") }
        guard bytes.count >= 44, bytes[0..<4].elementsEqual("TZif".utf8) else { throw bad() }
        func be32(_ at: Int) -> Int64 {
            Int64(Int32(bitPattern: bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
        }
        func be64(_ at: Int) -> Int64 { Int64(bitPattern: bytes[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
        func counts(_ at: Int) -> [Int] { (0..<6).map { Int(be32(at + 20 + 4 * $0)) } }
        func blockSize(_ c: [Int], timeSize: Int) -> Int {
            c[3] * timeSize + c[3] + c[4] * 6 + c[5] + c[2] * (timeSize + 4) + c[1] + c[0]
        }
        var header = 0
        var timeSize = 4
        var c = counts(0)
        if bytes[4] >= UInt8(ascii: "2") {
            header = 44 + blockSize(c, timeSize: 4)
            guard bytes.count >= header + 44, bytes[header..<header + 4].elementsEqual("TZif".utf8) else { throw bad() }
            c = counts(header)
            timeSize = 8
        }
        let (timeCount, typeCount, charCount) = (c[3], c[4], c[5])
        let data = header + 44
        guard typeCount > 0, bytes.count >= data + blockSize(c, timeSize: timeSize) else { throw bad() }
        let typesAt = data + timeCount * timeSize + timeCount
        let charsAt = typesAt + typeCount * 6
        var types: [LocalTimeType] = []
        for index in 0..<typeCount {
            let at = typesAt + index * 6
            let abbreviationStart = charsAt + Int(bytes[at + 5])
            guard Int(bytes[at + 5]) < charCount else { throw bad() }
            let abbreviationEnd = bytes[abbreviationStart..<charsAt + charCount].firstIndex(of: 0) ?? charsAt + charCount
            types.append(
                LocalTimeType(
                    offset: Int(be32(at)), isDST: bytes[at + 4] != 0,
                    abbreviation: String(decoding: bytes[abbreviationStart..<abbreviationEnd], as: UTF8.self)))
        }
        var transitions: [ZoneTransition] = []
        var previous = types[0]
        for index in 0..<timeCount {
            let at = timeSize == 8 ? be64(data + index * 8) : be32(data + index * 4)
            let typeIndex = Int(bytes[data + timeCount * timeSize + index])
            guard typeIndex < typeCount else { throw bad() }
            transitions.append(ZoneTransition(at: at, before: previous, after: types[typeIndex]))
            previous = types[typeIndex]
        }
        var rule: PosixZoneRule?
        let footerAt = data + blockSize(c, timeSize: timeSize)
        if timeSize == 8, footerAt < bytes.count, bytes[footerAt] == UInt8(ascii: "\n"),
            let end = bytes[(footerAt + 1)...].firstIndex(of: UInt8(ascii: "\n")), end > footerAt + 1
        {
            rule = PosixZoneRule(String(decoding: bytes[(footerAt + 1)..<end], as: UTF8.self))
        }
        self.init(name: name, transitions: transitions, initial: types[0], rule: rule)
    }
}
