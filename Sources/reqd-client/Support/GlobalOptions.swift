import ArgumentParser

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (default: $REQD_SOCKET, then the daemon's default places).")
    var socket: String?

    @Flag(name: .long, help: "Print JSON for scripts: one value, or one line per event.")
    var json = false

    func connect() throws -> DaemonConnection { try DaemonConnection(socket: socket) }
}

/// Runs a command body, turning failures into a message and the documented exit status.
func runReporting(_ body: () throws -> Int32) throws {
    do {
        let status = try body()
        if status != 0 { throw ExitCode(status) }
    } catch let failure as ClientFailure {
        Output.error(failure.message)
        throw ExitCode(failure.status)
    }
}
