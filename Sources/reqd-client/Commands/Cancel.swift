import ArgumentParser
import ReqdProtocol

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel one job, your job with a key, or all your jobs in a scope.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job id.")
    var job: String?

    @Option(help: "Cancel all your jobs in this scope.")
    var scope: String?

    @Option(help: "Cancel your active job with this key.")
    var key: String?

    @Flag(help: "For a schedule: also cancel its run in flight, aborting the request on the wire; without it the run finishes.")
    var abort = false

    @OptionGroup var output: QuietOption

    func validate() throws {
        guard [job, scope, key].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of JOB_ID, --scope or --key")
        }
    }

    func run() throws {
        try runReporting {
            let result = try global.connect().call(.cancel(JobSelector(job: job, key: key, scope: scope, abort: abort ? true : nil)), as: CancelResult.self)
            if global.json {
                Output.json(result)
            } else if output.quiet {
                for id in result.cancelled { Output.line(id) }
            } else if result.count == 0 {
                Output.line("nothing to cancel: no active job matched")
            } else {
                let more = result.count - result.cancelled.count
                let rest = more > 0 ? " and \(more) more" : ""
                Output.line("cancelled \(result.count) job\(result.count == 1 ? "" : "s"): \(result.cancelled.joined(separator: " "))\(rest)")
            }
            return ExitStatus.success
        }
    }
}
