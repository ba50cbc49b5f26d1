/// A cursor over ASCII bytes, for the small grammars here.
struct ByteScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number() -> Int? {
        var value = 0
        let start = index
        while let byte = peek, byte >= 0x30, byte <= 0x39, index - start < 18 {
            value = value * 10 + Int(byte - 0x30)
            index += 1
        }
        return index > start ? value : nil
    }

    /// `<+0530>` or three or more letters.
    mutating func zoneName() -> String? {
        if take("<") {
            let start = index
            while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
            guard take(">"), index - 1 > start else { return nil }
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }
        let start = index
        while let byte = peek, (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A { index += 1 }
        return index - start >= 3 ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    mutating func signedTime() -> Int? {
        var sign = 1
        if take("-") { sign = -1 } else { _ = take("+") }
        guard let hours = number() else { return nil }
        var seconds = hours * 3600
        if take(":") {
            guard let minutes = number() else { return nil }
            seconds += minutes * 60
            if take(":") {
                guard let secs = number() else { return nil }
                seconds += secs
            }
        }
        return sign * seconds
    }
}
