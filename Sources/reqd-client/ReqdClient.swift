import ArgumentParser
import ReqdProtocol

/// `reqd-client`: turns arguments into protocol requests and renders the replies. No job logic.
@main
struct ReqdClient: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reqd-client",
        abstract: "Talk to the reqd daemon: register jobs, cancel them, watch and wait for them.",
        discussion: """
            Exit statuses: 0 success; 1 other error; 2 job failed; 3 job cancelled; 4 job timed out; 5 job dead; \
            10 unknown job; 11 invalid request; 12 daemon unavailable for new work; 13 protocol mismatch; \
            14 daemon internal error; 64 bad usage; 69 daemon unreachable; 124 wait --timeout ran out.
            """,
        version: ProtocolInfo.softwareVersion,
        subcommands: [RegisterCountdown.self, RegisterPoll.self, Submit.self, Group.self, Retry.self, Cancel.self, Status.self, List.self, Watch.self, Wait.self])

    @OptionGroup var global: GlobalOptions
}
