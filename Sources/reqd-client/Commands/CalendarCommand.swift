import ArgumentParser
import Glibc
import ReqdCalendar

/// `reqd-client calendar`: the next elapses of a calendar or cron expression, from the engine the
/// daemon's schedules use. Needs no daemon.
struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Show a calendar or cron expression normalized, and when it next elapses.",
        discussion: """
            Works like `systemd-analyze calendar`, with the engine reqd's schedules use, and needs no daemon.
            A calendar expression is systemd's OnCalendar= syntax (systemd.time(7)) and may end with a zone:
              reqd-client calendar 'Mon..Fri 09:00 Europe/Berlin' --iterations 5
              reqd-client calendar --cron '*/15 9-17 * * mon-fri' --tz America/New_York
            Around clock changes an expression with a fixed hour elapses once: at the end of a
            spring-forward gap that swallows it, and at the first of two repeated times. One over
            several hours elapses at every real time it matches.
            --json prints {"normalized": ..., "zone": ..., "next": [UTC times]}.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The expression.")
    var expression: String

    @Flag(help: "Read the expression as five cron fields (or @daily, @hourly, ...), not OnCalendar= syntax.")
    var cron = false

    @Option(help: "How many elapses to show.")
    var iterations = 1

    @Option(help: "Count from this time, not now: @SECONDS, 2027-03-28T01:00:00Z, or a wall-clock time in the zone.")
    var from: String?

    @Option(help: "The zone: an IANA name such as Europe/Berlin, or UTC. The default is the local zone; a zone in the expression wins.")
    var tz: String?


    func validate() throws {
        guard (1...10_000).contains(iterations) else { throw ValidationError("--iterations takes 1 to 10000") }
    }

    func run() throws {
        try runReporting {
            do {
                let database = ZoneDatabase()
                let pattern: any CivilPattern
                var zoneName = tz
                if cron {
                    pattern = try CronSpec(parsing: expression)
                } else {
                    let spec = try CalendarSpec(parsing: expression) { (try? database.zone(named: $0)) != nil }
                    zoneName = spec.zone ?? zoneName
                    pattern = spec
                }
                let zone = try zoneName.map { name throws(CalendarError) in try database.zone(named: name) } ?? database.localZone()
                let start = try from.map { text throws(CalendarError) in try InstantText.parse(text, in: zone) } ?? Self.now()
                let elapses = Recurrence(pattern: pattern, zone: zone).elapses(after: start, count: iterations)
                if global.json {
                    Output.json(CalendarReply(normalized: pattern.normalized, zone: zone.name, next: elapses.map(InstantText.utc)))
                } else {
                    render(pattern: pattern, zone: zone, elapses: elapses)
                }
                return elapses.isEmpty ? ExitStatus.failure : ExitStatus.success
            } catch let error as CalendarError {
                throw ClientFailure(message: error.message, status: ExitStatus.invalidRequest)
            }
        }
    }

    private func render(pattern: any CivilPattern, zone: ZoneRules, elapses: [Int64]) {
        Output.line("  Original form: \(expression)")
        Output.line("Normalized form: \(pattern.normalized)")
        Output.line("      Time zone: \(zone.name)")
        if elapses.isEmpty { Output.line("    Next elapse: never") }
        for (index, elapse) in elapses.enumerated() {
            let label = index == 0 ? "    Next elapse" : "       Iter. #\(index + 1)"
            Output.line("\(label): \(InstantText.local(elapse, in: zone))")
            if zone.name != "UTC" { Output.line("       (in UTC): \(InstantText.local(elapse, in: .utc))") }
        }
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec / 1000)
    }
}
