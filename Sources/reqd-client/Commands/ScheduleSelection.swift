import ArgumentParser
import ReqdProtocol

/// Which schedules `pause` and `resume` act on: one id, a key or a scope.
struct ScheduleSelection: ParsableArguments {
    @Argument(help: "The schedule's job id.")
    var job: String?

    @Option(help: "The active schedule with this key.")
    var key: String?

    @Option(help: "Every active schedule in this scope.")
    var scope: String?

    func validate() throws {
        guard [job != nil, key != nil, scope != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of a job id, --key or --scope")
        }
    }

    var selector: JobSelector { JobSelector(job: job, key: key, scope: scope) }

    /// Sends `pause` or `resume` for the selection and prints the schedules it changed.
    func send(_ body: (JobSelector) -> RequestBody, global: GlobalOptions, quiet: Bool, verb: String) throws {
        try runReporting {
            let result = try global.connect().call(body(selector), as: CancelResult.self)
            if global.json {
                Output.json(result)
            } else {
                for id in result.cancelled { Output.line(quiet ? id : "\(verb) \(id)") }
            }
            return ExitStatus.success
        }
    }
}
