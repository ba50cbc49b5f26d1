import ArgumentParser
import ReqdProtocol

struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a dead (or failed) request job back in the queue with fresh attempts, under the same id.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job id, as `list --state dead` shows it.")
    var job: String

    func run() throws {
        try runReporting {
            let result = try global.connect().call(.retry(RetryRequest(job: job)), as: JobResult.self)
            if global.json {
                Output.json(result)
            } else {
                let attempts = result.job.request.map { "\($0.maxAttempts) attempts" } ?? "fresh attempts"
                Output.line("retrying \(result.job.id)  \(result.job.request.map { "\($0.method) \($0.url)" } ?? "")  (\(attempts))")
            }
            return ExitStatus.success
        }
    }
}
