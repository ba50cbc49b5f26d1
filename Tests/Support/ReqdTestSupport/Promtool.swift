import Foundation

/// Runs Prometheus's own checker, `promtool check metrics`, on an exposition text.
public enum Promtool {
    /// promtool's exit status and what it printed; a missing promtool fails with advice.
    public static func check(_ text: String) throws -> (status: Int32, output: String) {
        let candidates = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw HTTPGet.Failure("promtool is not installed: install the Debian package prometheus (scripts/setup does)")
        }
        // promtool may exit before reading all of its input: a write then must fail, not end the tests.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }
}
