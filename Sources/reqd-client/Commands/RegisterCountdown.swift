import ArgumentParser
import Foundation
import ReqdProtocol

struct RegisterCountdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-countdown",
        abstract: "Start a countdown; with --key, the same key replaces your running job with that key.")

    @OptionGroup var global: GlobalOptions

    @Option(
        name: [.customLong("key"), .customLong("replace")],
        help: "A key: registering it again replaces your running job with that key, of any kind. Without it, the job has its id alone.")
    var key: String?

    @Option(name: .customLong("in"), help: "How long to count down, such as 90s, 3m or 1h30m.")
    var duration: String?

    @Option(help: ArgumentHelp("Seconds to count down (fractions allowed); --in says it better.", visibility: .hidden))
    var seconds: Double?

    @Option(help: "Count down to this time: RFC 3339 (2026-11-22T10:00:00Z) or HH:MM[:SS] local time, today or, once past, tomorrow.")
    var at: String?

    @Option(name: .customLong("until"), help: ArgumentHelp("The old name of --at.", visibility: .hidden))
    var untilAlias: String?

    @Option(help: "Tick interval, such as 1s or 500ms (default: the daemon's countdown.default_tick, 1s as shipped).")
    var tick: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the countdown; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the countdown when this client exits (needs --follow or --wait); such a job is never stored.")
    var bindConnection = false

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "At expiry, send this request as a request job of its own: [METHOD] URL (GET, or POST with --data).",
            valueName: "METHOD URL"))
    var onExpire: [String] = []

    @OptionGroup(title: "The --on-expire request") var request: RequestOptions

    @Option(help: "Attempts the --on-expire request makes at most (default: the daemon's request.max_attempts, 8 as shipped).")
    var maxAttempts: Int?

    @Flag(help: "Stay and show the countdown live until it ends.")
    var follow = false

    @Flag(help: "Block until the countdown ends; the exit status tells how it ended.")
    var wait = false

    @OptionGroup var output: QuietOption

    /// The time to count down to, by either name.
    private var until: String? { at ?? untilAlias }

    func validate() throws {
        guard [duration != nil, seconds != nil, until != nil].filter({ $0 }).count == 1, at == nil || untilAlias == nil else {
            throw ValidationError("give exactly one of --in or --at")
        }
        if let duration { _ = try DurationOption.milliseconds(duration, option: "--in") }
        if let seconds, !(seconds >= 0.001 && seconds < 1e12) { throw ValidationError("--seconds must be from 0.001 to 1e12") }
        try checkOutputFlags(quiet: output.quiet, follow: follow, wait: wait)
        if let tick { _ = try DurationOption.milliseconds(tick, option: "--tick") }
        if let until, Self.parseUntil(until) == nil {
            throw ValidationError("--at takes RFC 3339 (2026-11-22T10:00:00Z) or HH:MM[:SS]; got '\(until)'")
        }
        if !onExpire.isEmpty { _ = try MethodURL.one(onExpire, option: "--on-expire") }
        if onExpire.isEmpty, !request.headers.isEmpty || request.data != nil || maxAttempts != nil {
            throw ValidationError("--header, --data and --max-attempts describe the --on-expire request; give --on-expire too")
        }
        if let maxAttempts, maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if bindConnection, !follow, !wait {
            throw ValidationError("--bind-connection needs --follow or --wait: the countdown ends when this client exits")
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
        if target <= now {
            // The same wall-clock time the next day, which is not 24 hours on the eve of a DST change.
            localtime_r(&now, &local)
            local.tm_mday += 1
            local.tm_hour = Int32(values[0])
            local.tm_min = Int32(values[1])
            local.tm_sec = Int32(values.count == 3 ? values[2] : 0)
            local.tm_isdst = -1
            target = mktime(&local)
        }
        return WallTime(nanosecondsSinceEpoch: Int64(target) * 1_000_000_000)
    }

    /// The countdown's length in milliseconds, from --in or --seconds.
    private func durationMs() throws -> Int64? {
        if let duration { return try DurationOption.milliseconds(duration, option: "--in") }
        return seconds.map { Int64(($0 * 1000).rounded()) }
    }

    func run() throws {
        try runReporting {
            var expiry: RequestSpec?
            if !onExpire.isEmpty {
                let target = try MethodURL.one(onExpire, option: "--on-expire")
                let body = try request.body()
                expiry = RequestSpec(
                    method: target.method(hasBody: !body.isEmpty), url: target.url, headers: request.headerLines, body: body.text,
                    bodyBase64: body.base64,
                    maxAttempts: maxAttempts)
            }
            let spec = CountdownSpec(
                key: key, durationMs: try durationMs(), until: until.flatMap(Self.parseUntil),
                tickMs: try tick.map { try DurationOption.milliseconds($0, option: "--tick") }, scope: scope,
                ephemeral: ephemeral ? true : nil, bindConnection: bindConnection ? true : nil, onExpire: expiry,
                follow: follow ? true : nil)
            let connection = try global.connect()
            let result = try connection.call(.registerCountdown(spec), as: RegisterResult.self)
            return try reportRegistration(
                result, on: connection, json: global.json, quiet: output.quiet, follow: follow, wait: wait
            ) {
                let left = EventRenderer.clock(result.job.remainingMs ?? 0) + " left"
                return "registered " + [result.job.id, key, left].compactMap { $0 }.joined(separator: "  ") + replacedNote(result)
            }
        }
    }
}
