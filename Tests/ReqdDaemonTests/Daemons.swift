import Foundation
import Logging
import ReqdDaemon
import ReqdTestSupport
import Synchronization
import Testing

/// Starts a daemon in-process on a temporary socket and state directory.
func startDaemon(in directory: TemporaryDirectory, configure: (inout Configuration) -> Void = { _ in }) throws -> Daemon {
    var configuration = Configuration()
    configuration.socketPath = directory.path + "/reqd.sock"
    configuration.stateDirectory = directory.path + "/state"
    configure(&configuration)
    var logger = Logger(label: "reqd-test")
    logger.logLevel = .warning
    return try Daemon.start(configuration: configuration, environment: [:], logger: logger, seed: 1)
}

/// Starts a daemon that accepts short poll intervals, for tests that must not take long.
func startPollDaemon(in directory: TemporaryDirectory, configure: (inout Configuration) -> Void = { _ in }) throws -> Daemon {
    try startDaemon(in: directory) { configuration in
        configuration.scheduler.minPollEveryNanos = 10_000_000
        configure(&configuration)
    }
}

/// The fields of a `register-poll` request of `url`, to send with `LineClient`.
func poll(_ url: String, every: Int, until: String = #"/state == "done""#, extra: [String: Any] = [:]) -> [String: Any] {
    var request: [String: Any] = ["op": "register-poll", "url": url, "every_ms": every, "until": until]
    request.merge(extra) { $1 }
    return request
}
