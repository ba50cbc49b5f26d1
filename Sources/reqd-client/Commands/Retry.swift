import ArgumentParser
import ReqdProtocol

struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a dead (or failed) request job back in the queue with fresh attempts, under the same id.",
        discussion: """
            --all retries every request job of yours (root: everyone's) in --state (default dead), optionally \
            only in --scope; it lists and retries them page by page (1,000 at most each) until none is left. A job the \
            daemon refuses (such as too_many_jobs) is reported and the rest go on; the exit status is then \
            that of the first refusal.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job id, as `list --state dead` shows it.")
    var job: String?

    @Flag(help: "Retry every request job of yours in --state.")
    var all = false

    @Option(help: "With --all: the state to retry, dead (the default) or failed.")
    var state: JobState?

    @Option(help: "With --all: only jobs in this scope.")
    var scope: String?

    @OptionGroup var output: QuietOption

    func validate() throws {
        guard (job != nil) != all else { throw ValidationError("give a job id or --all") }
        if !all, state != nil || scope != nil { throw ValidationError("--state and --scope go with --all") }
        if let state, state != .dead, state != .failed {
            throw ValidationError("retry --all takes --state dead or --state failed; got '\(state.rawValue)'")
        }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            if let job {
                show(try connection.call(.retry(RetryRequest(job: job)), as: JobResult.self))
                return ExitStatus.success
            }
            // Page by page in creation order: a job that fails again at once comes back behind
            // the cursor, so it is not retried twice.
            var retried: Set<String> = []
            var refused = 0
            var firstRefusal: Int32?
            var cursor: String?
            repeat {
                let batch = try connection.call(
                    .list(ListRequest(state: state ?? .dead, kind: .request, scope: scope, limit: List.pageSize, after: cursor)),
                    as: JobListResult.self)
                for listed in batch.jobs where retried.insert(listed.id).inserted {
                    do {
                        show(try connection.call(.retry(RetryRequest(job: listed.id)), as: JobResult.self))
                    } catch let refusal as ClientFailure where refusal.wire != nil {
                        Output.error("\(listed.id): \(refusal.message)")
                        refused += 1
                        firstRefusal = firstRefusal ?? refusal.status
                    }
                }
                cursor = batch.next
            } while cursor != nil
            if !global.json, !output.quiet {
                let done = retried.count - refused
                Output.line("retried \(done) job\(done == 1 ? "" : "s")" + (refused > 0 ? ", \(refused) refused" : ""))
            }
            return firstRefusal ?? ExitStatus.success
        }
    }

    private func show(_ result: JobResult) {
        if global.json {
            Output.json(result)
        } else if output.quiet {
            Output.line(result.job.id)
        } else {
            let attempts = result.job.request.map { "\($0.maxAttempts) attempts" } ?? "fresh attempts"
            Output.line("retrying \(result.job.id)  \(result.job.request.map { "\($0.method) \($0.url)" } ?? "")  (\(attempts))")
        }
    }
}
