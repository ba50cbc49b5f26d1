import Foundation

/// A `reqd` process started for a benchmark, on a temporary socket and state directory.
final class DaemonUnderTest {
    let process = Process()
    let directory: String
    let socket: String

    /// `REQD_BENCH_SET="http.threads=2 …"`: settings every daemon of the run gets last, for
    /// trying a setting on any row.
    static var settingsFromEnvironment: [String] {
        (ProcessInfo.processInfo.environment["REQD_BENCH_SET"] ?? "").split(separator: " ").flatMap { ["--set", String($0)] }
    }

    init(binary: String, extraArguments: [String] = []) throws {
        var template = Array("/tmp/reqd-bench-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        socket = directory + "/reqd.sock"
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--socket", socket, "--state-dir", directory + "/state", "--log-level", daemonLogLevel, "--log-target", "stderr",
            "--set", "jobs.max_retained=2000000", "--set", "jobs.max_active=5000000",
        ] + BenchLimits.arguments(for: binary) + extraArguments + Self.settingsFromEnvironment
        try process.run()
        for _ in 0..<300 {
            if (try? BenchSocket(path: socket)) != nil { return }
            usleep(20_000)
        }
        throw BenchError("reqd did not start")
    }

    /// The daemon's resident set size in bytes, from /proc.
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    /// CPU time (user + system) the daemon has used, in seconds.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
