import ArgumentParser
import ReqdProtocol

/// `reqd-client pause`.
struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop a schedule's elapses until resume; a run already going finishes.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: ScheduleSelection
    @OptionGroup var output: QuietOption

    func run() throws {
        try selection.send(RequestBody.pause, global: global, quiet: output.quiet, verb: "paused")
    }
}
