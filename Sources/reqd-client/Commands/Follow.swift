import ArgumentParser
import ReqdProtocol

/// Streams one job's events until its terminal event; returns the exit status for how it ended.
func followJob(_ connection: DaemonConnection, renderer: EventRenderer, initial: JobInfo?) throws -> Int32 {
    if let initial {
        guard initial.state == .active else {
            if !renderer.json { Output.line("\(initial.key ?? initial.id)  \(initial.state.rawValue)") }
            return ExitStatus.forState(initial.state)
        }
        renderer.renderInitial(initial)
    }
    while true {
        let line = try connection.readLine()
        let kind = try connection.decoder.decode(IncomingLineKind.self, from: .init(line))
        guard kind.isEvent else { continue }
        let event = try renderer.render(line)
        if let status = ExitStatus.forEvent(event) { return status }
    }
}

/// What a register command does once the daemon has accepted the job: prints the registration
/// (`line`, unless a live `--follow` line takes the terminal), then follows the job's events,
/// waits for its end and prints it with `ended`, or returns at once.
///
/// With `quiet` it prints the job's id alone, and nothing when the job ends.
func reportRegistration(
    _ result: RegisterResult, on connection: DaemonConnection, json: Bool, quiet: Bool = false, follow: Bool, wait: Bool,
    line: () -> String, ended: (JobInfo) -> Void = { Output.line(EventRenderer.ending($0)) }
) throws -> Int32 {
    let renderer = EventRenderer(json: json)
    if json {
        Output.json(result)
    } else if quiet {
        Output.line(result.job.id)
    } else if !(follow && renderer.live) {
        Output.line(line())
    }
    if follow { return try followJob(connection, renderer: renderer, initial: result.job) }
    guard wait else { return ExitStatus.success }
    let end = try connection.call(.wait(WaitRequest(job: result.job.id)), as: JobResult.self)
    if json {
        Output.json(end)
    } else if !quiet {
        ended(end.job)
    }
    return ExitStatus.forState(end.job.state)
}

/// Refuses the output flags of a register command that cannot go together.
func checkOutputFlags(quiet: Bool, follow: Bool, wait: Bool) throws {
    if follow, wait { throw ValidationError("give at most one of --follow and --wait") }
    if quiet, follow { throw ValidationError("give at most one of -q and --follow: -q prints the job id alone") }
}

/// `" (replaced ID)"` when the registration replaced a job, else nothing.
func replacedNote(_ result: RegisterResult) -> String { result.replaced.map { " (replaced \($0))" } ?? "" }
