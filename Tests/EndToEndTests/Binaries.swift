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

    /// Runs a command to completion (at most `timeout` seconds).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
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
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return Outcome(status: process.terminationStatus, stdout: collected.out, stderr: collected.err)
    }

    static func client(_ arguments: [String], socket: String, timeout: Double = 30) throws -> Outcome {
        try run(Self.client, ["--socket", socket] + arguments, timeout: timeout)
    }
}

final class Collected: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        if isOut { outData = data } else { errData = data }
        lock.unlock()
    }

    var out: String { lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self) }
    var err: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self) }
}

/// A `reqd` process on a temporary socket and state directory.
final class DaemonProcess {
    let directory: String
    let socket: String
    let process = Process()

    /// - Parameter environment: the daemon's whole environment; the test's own when nil.
    init(directory: String, extraArguments: [String] = [], environment: [String: String]? = nil) throws {
        self.directory = directory
        socket = directory + "/reqd.sock"
        process.executableURL = URL(fileURLWithPath: Binaries.reqd)
        process.arguments = ["--socket", socket, "--state-dir", directory + "/state", "--log-target", "stderr"] + extraArguments
        if let environment { process.environment = environment }
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
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
