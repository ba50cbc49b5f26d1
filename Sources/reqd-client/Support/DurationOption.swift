import ArgumentParser
import ReqdProtocol

/// A duration flag's value as the protocol takes it: whole milliseconds.
enum DurationOption {
    /// `text` (`500ms`, `3s`, `1h30m`) in whole milliseconds, a part of a millisecond dropped.
    ///
    /// A `ValidationError` naming `option` when it does not parse, or is under a millisecond but
    /// not zero (it would reach the daemon as 0), or is zero where `zero` does not allow it. The
    /// check is the client's, so that such a value is bad usage (exit 64), not a refusal.
    static func milliseconds(_ text: String, option: String, zero: Bool = false) throws -> Int64 {
        guard let nanoseconds = DurationText.parseNanoseconds(text), nanoseconds >= 0 else {
            throw ValidationError("\(option) takes a duration such as 500ms, 30s or 1h30m\(zero ? ", or 0" : ""); got '\(text)'")
        }
        if nanoseconds == 0 {
            guard zero else { throw ValidationError("\(option) takes a positive duration such as 500ms, 30s or 1h30m; got '\(text)'") }
            return 0
        }
        guard nanoseconds >= 1_000_000 else {
            throw ValidationError("\(option) counts whole milliseconds; '\(text)' is shorter than one")
        }
        return nanoseconds / 1_000_000
    }
}
