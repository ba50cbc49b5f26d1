/// The pieces of JSON's string escapes, shared by the request decoder and the response-body parser.
public enum JSONEscape {
    /// The byte a one-character escape (`\n`, `\"`, …) stands for; nil for `u` and for any
    /// character that is not an escape.
    public static func byte(escaping character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): character
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The value of one hex digit of a `\u` escape, either case.
    public static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
