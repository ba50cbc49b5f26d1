import ArgumentParser
import ReqdProtocol

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List your jobs (root: everyone's), oldest first.",
        discussion: """
            The daemon answers in pages of at most 1,000 jobs; list asks for page after page until \
            every matching job, or --limit of them, is shown.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Only jobs in this state: \(JobState.allCases.map(\.rawValue).joined(separator: ", ")).")
    var state: JobState?

    @Option(help: "Only jobs of this kind.")
    var kind: JobKind?

    @Option(help: "Only jobs in this scope.")
    var scope: String?

    @Option(help: "Only jobs with this key.")
    var key: String?

    @Option(help: "At most this many jobs (default: every one that matches).")
    var limit: Int?

    @Option(help: "Begin after this cursor, as an earlier list's `next` gave it.")
    var after: String?

    @OptionGroup var output: QuietOption

    /// The most jobs the daemon puts in one page.
    static let pageSize = 1_000

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            var jobs: [JobInfo] = []
            var cursor = after
            var next: String?
            repeat {
                let size = min(Self.pageSize, (limit ?? Int.max) - jobs.count)
                let page = try connection.call(
                    .list(ListRequest(state: state, kind: kind, scope: scope, key: key, limit: size, after: cursor)), as: JobListResult.self)
                jobs += page.jobs
                next = page.next
                cursor = next
            } while next != nil && jobs.count < (limit ?? Int.max)
            let result = JobListResult(jobs: jobs, next: next)
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
            if let next { Output.line("(more jobs match; list --after '\(next)' goes on)") }
            return ExitStatus.success
        }
    }
}
