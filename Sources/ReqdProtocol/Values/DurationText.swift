import Foundation

/// Parses and prints human durations such as `500ms`, `3s`, `15m`, `1h30m` and `2d`.
///
/// Both the client's flags and the daemon's configuration file use this syntax.
public enum DurationText {
    /// Parses a duration into nanoseconds, or returns nil when the text is not a duration.
    ///
    /// A bare number counts as seconds. Units: `ns`, `us`, `ms`, `s`, `m`, `h`, `d`.
    public static func parseNanoseconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Double(trimmed) {
            return fromSeconds(seconds)
        }
        var total: Double = 0
        var characters = Substring(trimmed)
        while !characters.isEmpty {
            let numberPart = characters.prefix { $0.isNumber || $0 == "." }
            guard !numberPart.isEmpty, let value = Double(numberPart) else { return nil }
            characters = characters.dropFirst(numberPart.count)
            let unitPart = characters.prefix { $0.isLetter }
            characters = characters.dropFirst(unitPart.count)
            let scale: Double
            switch unitPart {
            case "ns": scale = 1
            case "us", "µs": scale = 1_000
            case "ms": scale = 1_000_000
            case "s": scale = 1_000_000_000
            case "m": scale = 60_000_000_000
            case "h": scale = 3_600_000_000_000
            case "d": scale = 86_400_000_000_000
            default: return nil
            }
            total += value * scale
        }
        guard total.isFinite, total < Double(Int64.max) else { return nil }
        return Int64(total)
    }

    /// Converts seconds to nanoseconds, or nil when the value does not fit.
    public static func fromSeconds(_ seconds: Double) -> Int64? {
        let nanos = seconds * 1_000_000_000
        guard nanos.isFinite, abs(nanos) < Double(Int64.max) else { return nil }
        return Int64(nanos)
    }

    /// Prints nanoseconds compactly, e.g. `1h30m`, `2.5s`, `250ms`.
    public static func format(nanoseconds: Int64) -> String {
        if nanoseconds == 0 { return "0s" }
        if nanoseconds < 0 { return "-" + format(nanoseconds: -nanoseconds) }
        if nanoseconds < 1000 { return "\(nanoseconds)ns" }
        if nanoseconds < 1_000_000 { return "\(nanoseconds / 1000)us" }
        if nanoseconds < 1_000_000_000 { return "\(nanoseconds / 1_000_000)ms" }
        if nanoseconds < 60_000_000_000 {
            let tenths = nanoseconds / 100_000_000
            return tenths % 10 == 0 ? "\(tenths / 10)s" : "\(tenths / 10).\(tenths % 10)s"
        }
        var seconds = nanoseconds / 1_000_000_000
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where seconds >= size {
            text += "\(seconds / size)\(unit)"
            seconds %= size
        }
        return text
    }
}
