import ArgumentParser
import ReqdProtocol

struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the daemon's metrics in the Prometheus text format.",
        discussion: """
            The same text the optional endpoint (metrics.listen) serves: counters of registrations, \
            attempts, retries, holds, dead letters and HTTP answers; histograms of HTTP, commit and \
            timer latency; gauges of jobs by kind and state. The counts are over every user's jobs; \
            they name no job, key or host. With --json, the reply also lists your jobs due soonest \
            and your failing targets, as `reqd-client top` shows them.

            Examples:
              reqd-client metrics | grep reqd_http_responses_total
              reqd-client metrics --json --soonest 20
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "With --json: how many of your jobs due soonest to include (0 to 100).")
    var soonest: Int = 10

    func validate() throws {
        guard (0...100).contains(soonest) else { throw ValidationError("--soonest must be between 0 and 100") }
    }

    func run() throws {
        try runReporting {
            let result = try global.connect().call(
                .metrics(MetricsRequest(soonest: global.json ? soonest : 0)), as: MetricsResult.self)
            if global.json { Output.json(result) } else { Output.raw(result.text) }
            return ExitStatus.success
        }
    }
}
