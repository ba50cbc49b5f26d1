import Foundation
import Testing

/// Runs the built `reqd` and `reqd-client` the way a user does.
enum Binaries {
    /// The directory holding the built products: `$REQD_BIN_DIR`, else beside the test bundle.
    static let directory: String = {
        if let explicit = ProcessInfo.processInfo.environment["REQD_BIN_DIR"] { return explicit }
        var url = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("reqd-client").path) { return url.path }
        }
        return ".build/debug"
    }()

    static var reqd: String { directory + "/reqd" }
    static var client: String { directory + "/reqd-client" }

    /// The result of a finished command.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String

        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    /// Runs a command to completion (at most `timeout` seconds), with `input` on its standard input.
    @discardableResult
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil, timeout: Double = 30
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        let stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        while process.isRunning && Date() < deadline { usleep(10_000) }
        stop(process)
        process.waitUntilExit()
        group.wait()
        return Outcome(status: process.terminationStatus, stdout: collected.out, stderr: collected.err)
    }

    /// Starts the client in the background; the function it returns waits for it to end (at most
    /// `timeout` seconds from then) and gives its exit status and standard output.
    static func clientInBackground(_ arguments: [String], socket: String, timeout: Double = 10) throws -> () -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.client)
        process.arguments = ["--socket", socket] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        return {
            let deadline = Date().addingTimeInterval(timeout)
            DispatchQueue.global().async {
                while process.isRunning && Date() < deadline { usleep(10_000) }
                stop(process)
            }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
        }
    }

    /// Ends a process that outran its time: SIGTERM, then SIGKILL a second later. A child spawned
    /// from a test's thread inherits that thread's signal mask, which may block SIGTERM; the test
    /// must end anyway rather than wait for it forever.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let killAt = Date().addingTimeInterval(1)
        while process.isRunning && Date() < killAt { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    static func client(_ arguments: [String], socket: String, input: String? = nil, timeout: Double = 30) throws -> Outcome {
        try run(Self.client, ["--socket", socket] + arguments, input: input, timeout: timeout)
    }
}
