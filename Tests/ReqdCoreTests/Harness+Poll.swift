import ReqdProtocol
import Testing
@testable import ReqdCore

/// A poll of a remote job until its state is "done", with the options the poll suites vary.
func pollSpec(
    every: Int64 = 3_000, until: String = #"/state == "done""#, progress: String? = "/progress",
    timeoutMs: Int64? = nil, maxPolls: Int? = nil, maxFailures: Int? = nil, ephemeral: Bool = false,
    follow: Bool = true
) -> PollSpec {
    PollSpec(
        url: "https://api.example/jobs/7", everyMs: every, until: until, progress: progress, timeoutMs: timeoutMs,
        maxPolls: maxPolls, maxFailures: maxFailures, ephemeral: ephemeral, follow: follow)
}
