import ArgumentParser
import ReqdProtocol

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget ended or dead jobs now, from the daemon and its store, before their retention passes.",
        discussion: """
            An active job is refused (exit 11): cancel it first. Every id is tried: one the daemon \
            refuses is named on stderr and the rest are still deleted; the exit status is the first \
            refusal's, or the connection's failure if the connection fails.
            """)

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
            var status = ExitStatus.success
            for job in jobs {
                let result: JobResult
                do {
                    result = try connection.call(.delete(DeleteRequest(job: job)), as: JobResult.self)
                } catch let failure as ClientFailure where failure.wire != nil {
                    // The daemon refused this id; the connection is fine, so the others go on.
                    Output.error(failure.message)
                    if status == ExitStatus.success { status = failure.status }
                    continue
                }
                if global.json {
                    Output.json(result)
                } else if output.quiet {
                    Output.line(result.job.id)
                } else {
                    Output.line("deleted \(result.job.id)  (\(result.job.state.rawValue))")
                }
            }
            return status
        }
    }
}
