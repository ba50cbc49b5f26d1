import ArgumentParser
import ReqdProtocol

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List your jobs (root: everyone's), oldest first.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Only jobs in this state: \(JobState.allCases.map(\.rawValue).joined(separator: ", ")).")
    var state: JobState?

    @Option(help: "Only jobs of this kind.")
    var kind: JobKind?

    @Option(help: "Only jobs in this scope.")
    var scope: String?

    @Option(help: "Only jobs with this key.")
    var key: String?

    @Option(help: "At most this many jobs (default 1000).")
    var limit: Int?

    @OptionGroup var output: QuietOption

    func run() throws {
        try runReporting {
            let result = try global.connect().call(
                .list(ListRequest(state: state, kind: kind, scope: scope, key: key, limit: limit)), as: JobListResult.self)
            if global.json {
                Output.json(result)
                return ExitStatus.success
            }
            if output.quiet {
                for job in result.jobs { Output.line(job.id) }
                return ExitStatus.success
            }
            var rows = [["ID", "KIND", "STATE", "KEY", "SCOPE", "LEFT/ENDED"]]
            for job in result.jobs {
                let when = job.remainingMs.map { EventRenderer.clock($0) } ?? job.endedAt?.rfc3339 ?? "-"
                rows.append([job.id, job.kind.rawValue, job.state.rawValue, job.key ?? "-", job.scope ?? "-", when])
            }
            for line in TextTable.lines(rows) { Output.line(line) }
            if result.truncated { Output.line("(more jobs matched; raise --limit)") }
            return ExitStatus.success
        }
    }
}
