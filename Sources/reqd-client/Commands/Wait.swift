import ArgumentParser
import ReqdProtocol

struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Block until the job ends; the exit status tells how (0 expired or succeeded, 2 failed, 3 cancelled, 4 timed out, 5 dead).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job id.")
    var job: String

    @Option(help: "Give up after this long (exit 124), such as 30s or 5m.")
    var timeout: String?

    func validate() throws {
        if let timeout, (DurationText.parseNanoseconds(timeout) ?? 0) <= 0 {
            throw ValidationError("--timeout takes a positive duration such as 30s; got '\(timeout)'")
        }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            if let timeout, let nanos = DurationText.parseNanoseconds(timeout) {
                connection.setReadTimeout(seconds: Double(nanos) / 1e9)
            }
            let result = try connection.call(.wait(WaitRequest(job: job)), as: JobResult.self)
            if global.json {
                Output.json(result)
            } else {
                Output.line(EventRenderer.ending(result.job))
            }
            return ExitStatus.forState(result.job.state)
        }
    }
}
