import ArgumentParser
import Foundation
import ReqdProtocol

struct RegisterCountdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-countdown",
        abstract: "Start a countdown; the same key replaces your running countdown with that key.")

    @OptionGroup var global: GlobalOptions

    @Option(
        name: [.customLong("key"), .customLong("replace")],
        help: "The countdown's key: registering it again replaces your running job with that key, of any kind.")
    var key: String

    @Option(help: "Seconds to count down (fractions allowed).")
    var seconds: Double?

    @Option(help: "Count down to this time: RFC 3339 (2026-11-22T10:00:00Z) or HH:MM[:SS] today, local time.")
    var until: String?

    @Option(help: "Tick interval, such as 1s or 500ms (default 1s).")
    var tick: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the countdown; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the countdown when this client exits (needs --follow); such a job is never stored.")
    var bindConnection = false

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "At expiry, send this request as a request job of its own: METHOD URL.", valueName: "METHOD URL"))
    var onExpire: [String] = []

    @OptionGroup(title: "The --on-expire request") var request: RequestOptions

    @Option(help: "Attempts the --on-expire request makes at most (default 8).")
    var maxAttempts: Int?

    @Flag(help: "Stay and show the countdown live until it ends.")
    var follow = false

    func validate() throws {
        guard (seconds == nil) != (until == nil) else {
            throw ValidationError("give exactly one of --seconds or --until")
        }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
        if let tick, DurationText.parseNanoseconds(tick) == nil {
            throw ValidationError("--tick takes a duration such as 1s, 500ms or 1m; got '\(tick)'")
        }
        if let until, Self.parseUntil(until) == nil {
            throw ValidationError("--until takes RFC 3339 (2026-11-22T10:00:00Z) or HH:MM[:SS]; got '\(until)'")
        }
        if !onExpire.isEmpty, onExpire.count != 2 {
            throw ValidationError("--on-expire takes a method and a URL, such as --on-expire POST https://example.org/done")
        }
        if onExpire.isEmpty, !request.headers.isEmpty || request.data != nil || maxAttempts != nil {
            throw ValidationError("--header, --data and --max-attempts describe the --on-expire request; give --on-expire too")
        }
        if let maxAttempts, maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if bindConnection, !follow {
            throw ValidationError("--bind-connection needs --follow: the countdown ends when this client exits")
        }
    }

    /// Parses RFC 3339, or a local time of day (today, or tomorrow if it has passed).
    static func parseUntil(_ text: String) -> WallTime? {
        if let exact = WallTime(rfc3339: text) { return exact }
        let parts = text.split(separator: ":").map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let values = parts.map { $0! }
        guard values[0] < 24, values[1] < 60, values.count < 3 || values[2] < 60 else { return nil }
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        local.tm_hour = Int32(values[0])
        local.tm_min = Int32(values[1])
        local.tm_sec = Int32(values.count == 3 ? values[2] : 0)
        local.tm_isdst = -1
        var target = mktime(&local)
        if target <= now { target += 86_400 }
        return WallTime(nanosecondsSinceEpoch: Int64(target) * 1_000_000_000)
    }

    func run() throws {
        try runReporting {
            let spec = CountdownSpec(
                key: key, durationMs: seconds.map { Int64(($0 * 1000).rounded()) }, until: until.flatMap(Self.parseUntil),
                tickMs: tick.flatMap(DurationText.parseNanoseconds).map { $0 / 1_000_000 }, scope: scope,
                ephemeral: ephemeral ? true : nil, bindConnection: bindConnection ? true : nil,
                onExpire: onExpire.count == 2
                    ? RequestSpec(
                        method: onExpire[0], url: onExpire[1], headers: request.headerLines, body: try request.body(),
                        maxAttempts: maxAttempts) : nil,
                follow: follow ? true : nil)
            let connection = try global.connect()
            let result = try connection.call(.registerCountdown(spec), as: RegisterResult.self)
            return try reportRegistration(result, on: connection, json: global.json, follow: follow, wait: false) {
                "registered \(result.job.id)  \(key)  \(EventRenderer.clock(result.job.remainingMs ?? 0)) left\(replacedNote(result))"
            }
        }
    }
}
