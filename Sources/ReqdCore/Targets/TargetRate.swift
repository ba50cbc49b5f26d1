/// A rate limit as the configuration writes it: `"20/s"`, `"600/m"` or `"3600/h"`.
///
/// Held as a count per period so that `"600/m"` keeps its exact meaning; `intervalNanos` is the
/// time one token takes to come back.
public struct TargetRate: Sendable, Hashable, CustomStringConvertible {
    /// Requests allowed per period, at least 1.
    public let count: Int
    /// The period in nanoseconds: a second, a minute or an hour.
    public let periodNanos: Int64

    /// Reads `"20/s"`, `"600/m"`, `"3600/h"`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber),
            let count = Int(parts[0]), (1...1_000_000).contains(count)
        else { return nil }
        switch parts[1] {
        case "s": periodNanos = 1_000_000_000
        case "m": periodNanos = 60_000_000_000
        case "h": periodNanos = 3_600_000_000_000
        default: return nil
        }
        self.count = count
    }

    /// The time one token takes to come back.
    public var intervalNanos: Int64 { max(1, periodNanos / Int64(count)) }

    /// As written: `20/s`.
    public var description: String {
        "\(count)/" + (periodNanos == 1_000_000_000 ? "s" : periodNanos == 60_000_000_000 ? "m" : "h")
    }
}
