import Foundation

/// The `--set` arguments that lift reqd's per-user limits (`limits.*`), for a binary that has them.
///
/// Every bench client runs as one uid, standing in for many users, so the per-user defaults
/// (256 connections, 256 requests in flight, 100,000 active and 20,000 retained jobs) would measure
/// the limits, not the daemon. A build from before the limits refuses the keys: it gets none.
enum BenchLimits {
    static let settings = [
        "limits.active_jobs_per_user=100000000", "limits.connections_per_user=1000000",
        "limits.requests_in_flight_per_user=1000000", "limits.retained_jobs_per_user=100000000",
    ]

    /// The arguments for `binary`: the settings when `reqd --check-config` accepts them.
    static func arguments(for binary: String) -> [String] {
        let arguments = settings.flatMap { ["--set", $0] }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: binary)
        check.arguments = ["--check-config"] + arguments
        check.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        check.standardError = FileHandle(forWritingAtPath: "/dev/null")
        guard (try? check.run()) != nil else { return [] }
        check.waitUntilExit()
        return check.terminationStatus == 0 ? arguments : []
    }
}
