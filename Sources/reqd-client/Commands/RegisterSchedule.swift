import ArgumentParser
import Foundation
import ReqdProtocol

/// `reqd-client register-schedule`: a recurring job on the daemon's one timer.
struct RegisterSchedule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-schedule",
        abstract: "Start a recurring job: each elapse sends a request as a job of its own, or only tells its watchers.",
        discussion: """
            Exactly one of --calendar (systemd's OnCalendar= syntax), --cron (five fields or @daily ...) or
            --every (a fixed interval from now). The syntax and the rule at clock changes are in docs/CALENDAR.md;
            `reqd-client calendar EXPR` shows the next elapses. Schedules are stored unless --ephemeral.
              reqd-client register-schedule --calendar 'Mon..Fri 09:00' --tz Europe/Berlin POST https://hooks.example/standup
              reqd-client register-schedule --every 5m https://status.example/ping --key ping
              reqd-client register-schedule --cron '0 3 * * *' --key nightly     # elapse events only: see watch --key nightly
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The request each elapse sends: [METHOD] URL (GET, or POST with --data). None: elapse events only.", valueName: "METHOD URL"))
    var target: [String] = []

    @Option(help: "An OnCalendar= expression, such as 'Mon..Fri 09:00' or '*:0/15'; it may end with a zone.")
    var calendar: String?

    @Option(help: "A cron expression: five fields ('*/15 9-17 * * mon-fri') or @hourly, @daily, @weekly ...")
    var cron: String?

    @Option(help: "A fixed interval from now, such as 30s, 5m or 1h.")
    var every: String?

    @Option(help: "The zone for --calendar and --cron: an IANA name such as Europe/Berlin, or UTC (default: the daemon's local zone).")
    var tz: String?

    @Option(help: "An elapse while the previous run still goes: skip (default), queue (one waits) or replace (abort the running one).")
    var overlap: ScheduleOverlap?

    @Option(help: "Elapses missed while the daemon was down or the machine slept: one run at start (one, the default) or none.")
    var catchUp: ScheduleCatchUp?

    @Option(help: "Delay each elapse by a random time up to this, such as 30s.")
    var randomizedDelay: String?

    @Flag(help: "With --randomized-delay: the same delay for every elapse, derived from the job id.")
    var fixedDelay = false

    @Option(name: [.customShort("X"), .customLong("method")], help: "The request's HTTP method, as curl's -X.")
    var method: String?

    @OptionGroup(title: "The request") var request: RequestOptions

    @OptionGroup(title: "Retries of each run's request") var retries: RetryOptions

    @Option(name: [.customLong("key"), .customLong("replace")], help: "A key: registering it again replaces your running job with that key.")
    var key: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the schedule; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the schedule when this client exits (needs --follow); such a job is never stored.")
    var bindConnection = false

    @Flag(help: "Stay and show each elapse live.")
    var follow = false

    @OptionGroup var output: QuietOption

    func validate() throws {
        guard [calendar != nil, cron != nil, every != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --calendar, --cron or --every")
        }
        if let every { _ = try DurationOption.milliseconds(every, option: "--every") }
        if let randomizedDelay { _ = try DurationOption.milliseconds(randomizedDelay, option: "--randomized-delay", zero: true) }
        if fixedDelay, randomizedDelay == nil { throw ValidationError("--fixed-delay needs --randomized-delay") }
        if every != nil, tz != nil { throw ValidationError("--tz applies to --calendar and --cron, not to --every") }
        try checkOutputFlags(quiet: output.quiet, follow: follow, wait: false)
        if target.isEmpty, !request.headers.isEmpty || request.data != nil || retries.isGiven || method != nil {
            throw ValidationError(
                "--header, --data, -X, --max-attempts, --backoff and --retry-on describe the request: give METHOD URL too")
        }
        if !target.isEmpty { _ = try MethodURL.one(target, option: "register-schedule").with(method: method) }
        if bindConnection, !follow { throw ValidationError("--bind-connection needs --follow: the schedule ends when this client exits") }
    }

    func run() throws {
        try runReporting {
            var spec = ScheduleSpec(
                calendar: calendar, cron: cron, everyMs: try every.map { try DurationOption.milliseconds($0, option: "--every") },
                tz: tz, overlap: overlap, catchUp: catchUp,
                randomizedDelayMs: try randomizedDelay.map { try DurationOption.milliseconds($0, option: "--randomized-delay", zero: true) },
                fixedDelay: fixedDelay ? true : nil, key: key, scope: scope, ephemeral: ephemeral ? true : nil,
                bindConnection: bindConnection ? true : nil, follow: follow ? true : nil)
            if !target.isEmpty {
                let destination = try MethodURL.one(target, option: "register-schedule").with(method: method)
                let body = try request.body()
                var sent = RequestSpec(
                    method: destination.method(hasBody: !body.isEmpty), url: destination.url, headers: request.headerLines,
                    body: body.text, bodyBase64: body.base64)
                retries.apply(to: &sent)
                spec.request = sent
            }
            let connection = try global.connect()
            let result = try connection.call(.registerSchedule(spec), as: RegisterResult.self)
            return try reportRegistration(result, on: connection, json: global.json, quiet: output.quiet, follow: follow, wait: false) {
                let next = result.job.schedule?.next.first.map { "  next \($0.rfc3339)" } ?? ""
                return "registered " + [result.job.id, key].compactMap { $0 }.joined(separator: "  ") + next + replacedNote(result)
            }
        }
    }
}
