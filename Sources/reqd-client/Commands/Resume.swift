import ArgumentParser
import ReqdProtocol

/// `reqd-client resume`.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start a paused schedule again from its next future elapse; what passed while paused is not run.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: ScheduleSelection
    @OptionGroup var output: QuietOption

    func run() throws {
        try selection.send(RequestBody.resume, global: global, quiet: output.quiet, verb: "resumed")
    }
}
