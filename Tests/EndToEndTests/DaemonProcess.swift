import Foundation
import ReqdTestSupport
import Testing

/// A `reqd` process on a temporary socket and state directory.
final class DaemonProcess {
    let directory: String
    let socket: String
    let process = Process()

    /// - Parameter environment: the daemon's whole environment; when nil, the test's own without
    ///   proxy variables, so a machine's proxy settings cannot reroute the tests' requests.
    /// - Parameter logFile: where its log (stderr) goes; nowhere when nil.
    /// - Parameter launcher: a command that runs `reqd` and its arguments, such as `setpriv` with
    ///   another uid; none when empty.
    init(
        directory: String, extraArguments: [String] = [], environment: [String: String]? = nil, logFile: String? = nil,
        launcher: [String] = []
    ) throws {
        self.directory = directory
        socket = directory + "/reqd.sock"
        let arguments = [Binaries.reqd, "--socket", socket, "--state-dir", directory + "/state", "--log-target", "stderr"] + extraArguments
        let command = launcher + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
            ?? ProcessInfo.processInfo.environment.filter { !["http_proxy", "https_proxy", "no_proxy"].contains($0.key.lowercased()) }
        if let logFile { FileManager.default.createFile(atPath: logFile, contents: nil) }
        process.standardError = FileHandle(forWritingAtPath: logFile ?? "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let outcome = try? Binaries.client(["status"], socket: socket, timeout: 5), outcome.status == 0 { return }
            usleep(50_000)
        }
        Issue.record("reqd did not become ready on \(socket)")
    }

    /// Sends a signal and waits for the process to end; returns its termination status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends SIGHUP and waits until `log` holds `line` at least `count` times (how the reload went).
    func reload(expecting line: String, count: Int, in log: String) {
        kill(process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.components(separatedBy: line).count - 1 >= count { return }
            usleep(20_000)
        }
        Issue.record("no '\(line)' in the log after SIGHUP")
    }

    deinit {
        if process.isRunning { stop(signal: SIGKILL) }
    }
}

/// A temporary directory that a second uid can traverse.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/reqd-e2e-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    chmod(path, 0o755)
    return path
}

/// Runs `body` with `server` and a `reqd` process (given `daemonArguments`) in a temporary
/// directory; stops both and removes the directory afterwards.
func withServerAndDaemon(
    _ server: TestHTTPServer, daemonArguments: [String] = [], _ body: (TestHTTPServer, DaemonProcess) throws -> Void
) throws {
    defer { server.shutdown() }
    let directory = makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let daemon = try DaemonProcess(directory: directory, extraArguments: daemonArguments)
    defer { daemon.stop() }
    try body(server, daemon)
}
