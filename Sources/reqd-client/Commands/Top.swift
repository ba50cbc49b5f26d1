import ArgumentParser
import Foundation
import ReqdProtocol

struct Top: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon live, full screen: jobs, rates, what is due next, failing targets.",
        discussion: """
            Refreshes every second (--interval). Shows your jobs by kind and state (root: everyone's), \
            registrations, attempts and HTTP answers per second, held request jobs, your jobs whose \
            next deadline comes soonest, and the targets of your jobs that are unreachable or \
            failing. Press q (or Ctrl-C) to quit. If the daemon goes away, top says so and keeps \
            trying.

            Examples:
              reqd-client top
              reqd-client top --interval 5s
              reqd-client top --once        # one frame as plain text, for scripts
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Time between refreshes, such as 1s or 500ms (100ms to 1h).")
    var interval: String = "1s"

    @Flag(help: "Print one frame as plain text and exit, with no screen control.")
    var once = false

    func validate() throws {
        guard let nanos = DurationText.parseNanoseconds(interval), (100_000_000...3_600_000_000_000).contains(nanos) else {
            throw ValidationError("--interval must be a duration from 100ms to 1h, such as 1s")
        }
        guard once || Output.isTerminal else {
            throw ValidationError("top needs a terminal; use --once for one frame, or `reqd-client metrics` for the counters")
        }
    }

    func run() throws {
        let seconds = Double(DurationText.parseNanoseconds(interval) ?? 1_000_000_000) / 1e9
        if once {
            try runReporting {
                let connection = try global.connect()
                let screen = try Self.sample(connection, previous: nil, refresh: seconds).screen
                Output.raw(screen.lines(width: Output.columns, height: .max).joined(separator: "\n") + "\n")
                return ExitStatus.success
            }
            return
        }
        // A write to a daemon that went away must fail, not end top with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let terminal = Terminal()
        defer { terminal.restore() }
        var connection: DaemonConnection?
        var previous: (text: MetricsText, at: Double)?
        while true {
            var screen = TopScreen(now: Self.wallNow(), refreshSeconds: seconds)
            do {
                if connection == nil {
                    let opened = try global.connect()
                    // A daemon that stops answering must not keep top from its keys.
                    opened.setReadTimeout(seconds: max(2 * seconds, 5))
                    connection = opened
                }
                let sample = try Self.sample(connection!, previous: previous, refresh: seconds)
                screen = sample.screen
                previous = sample.metrics
            } catch let failure as ClientFailure {
                connection = nil
                let reason = failure.status == ExitStatus.waitTimedOut ? "the daemon did not answer in time" : failure.message
                screen.problem = reason.split(separator: "\n").first.map(String.init) ?? reason
            }
            let size = terminal.size
            terminal.draw(screen.lines(width: size.columns, height: size.rows))
            if terminal.waitForQuit(within: seconds) { return }
        }
    }

    /// Asks the daemon for its summary and metrics and makes a frame of them, with rates against
    /// the previous sample.
    private static func sample(
        _ connection: DaemonConnection, previous: (text: MetricsText, at: Double)?, refresh: Double
    ) throws -> (screen: TopScreen, metrics: (text: MetricsText, at: Double)) {
        let summary = try connection.call(.status(StatusRequest()), as: DaemonSummary.self)
        let metrics = try connection.call(.metrics(MetricsRequest(soonest: 10)), as: MetricsResult.self)
        let at = ProcessInfo.processInfo.systemUptime
        let text = MetricsText(metrics.text)
        var screen = TopScreen(summary: summary, metrics: metrics, now: wallNow(), refreshSeconds: refresh)
        if let previous { screen.rates = TopScreen.Rates(from: previous.text, to: text, seconds: at - previous.at) }
        return (screen, (text, at))
    }

    private static func wallNow() -> WallTime {
        WallTime(nanosecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1e9))
    }
}
