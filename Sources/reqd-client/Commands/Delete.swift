import ArgumentParser
import ReqdProtocol

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget ended or dead jobs now, from the daemon and its store, before their retention passes.",
        discussion: "An active job is refused (exit 11): cancel it first.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job ids.")
    var jobs: [String]

    @OptionGroup var output: QuietOption

    func validate() throws {
        if jobs.isEmpty { throw ValidationError("give at least one job id") }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            for job in jobs {
                let result = try connection.call(.delete(DeleteRequest(job: job)), as: JobResult.self)
                if global.json {
                    Output.json(result)
                } else if output.quiet {
                    Output.line(result.job.id)
                } else {
                    Output.line("deleted \(result.job.id)  (\(result.job.state.rawValue))")
                }
            }
            return ExitStatus.success
        }
    }
}
