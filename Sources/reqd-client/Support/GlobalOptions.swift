import ArgumentParser
import Foundation

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (default: $REQD_SOCKET, then the daemon's default places).")
    var socket: String?

    @Flag(name: .long, help: "Print JSON for scripts: one value, or one line per event.")
    var json = false

    func connect() throws -> DaemonConnection { try DaemonConnection(socket: socket) }
}

/// Writes the client's output.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func raw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("reqd-client: " + text + "\n").utf8))
    }

    /// Prints a value as one line of JSON with sorted keys.
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) {
            FileHandle.standardOutput.write(data + Data([10]))
        }
    }

    /// Whether standard output is a terminal, where live lines update in place.
    static var isTerminal: Bool { isatty(1) == 1 }
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
