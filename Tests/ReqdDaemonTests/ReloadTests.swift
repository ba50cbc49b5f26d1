import Logging
import ReqdCore
import Testing
@testable import ReqdDaemon

@Suite("Reload")
struct ReloadTests {
    @Test("a key changed alone is applied when reloadable, and otherwise is the one key left for a restart")
    func eachKeyAlone() throws {
        for setting in Configuration.settings {
            let changed = try #require(ConfigurationTests.changed(setting), "no other value found for \(setting.key)")
            let differing = Configuration.settings.filter { $0.differs(from: Configuration(), in: changed.configuration) }
            #expect(differing.map(\.key) == [setting.key], "keys that share a field with \(setting.key)")
            let reload = Configuration().reloaded(with: changed.configuration)
            if setting.isReloadable {
                #expect(reload.needsRestart.isEmpty, "\(setting.key)")
                #expect(reload.running == changed.configuration, "\(setting.key) is not applied")
            } else {
                #expect(reload.needsRestart == [setting.key])
                #expect(reload.running == Configuration(), "\(setting.key) is applied before a restart")
            }
        }
    }

    @Test("several changes at once: the reloadable ones apply, the others are listed in table order until a restart")
    func severalKeys() throws {
        let new = try ConfigurationLoader(
            file: nil, environment: [:],
            overrides: [
                ("http.threads", "2"), ("daemon.log_level", "debug"), ("socket.mode", "0600"),
                ("http.request_timeout", "5s"), ("jobs.retention", "2h"), ("http.max_request_bytes", "2048"),
            ]
        ).load()
        let old = Configuration()
        let reload = old.reloaded(with: new)
        #expect(reload.needsRestart == ["socket.mode", "http.request_timeout", "http.threads"])
        var expected = old
        expected.logLevel = .debug
        expected.scheduler.retentionNanos = 2 * 3_600 * 1_000_000_000
        expected.scheduler.maxRequestBodyBytes = 2048
        #expect(reload.running == expected)
        // Until the restart, the next reload of the same file reports them again.
        #expect(reload.running.reloaded(with: new).needsRestart == reload.needsRestart)
        #expect(new.reloaded(with: new).needsRestart.isEmpty)
    }

    @Test("Daemon.reload sets the log level and the scheduler's limits, and logs the keys that need a restart")
    func daemonReload() throws {
        let directory = TemporaryDirectory()
        let messages = RecordingLogHandler.Messages()
        var logger = messages.logger()
        logger.logLevel = .info
        var configuration = Configuration()
        configuration.socketPath = directory.path + "/reqd.sock"
        configuration.stateDirectory = directory.path + "/state"
        let daemon = try Daemon.start(configuration: configuration, environment: [:], logger: logger, seed: 1)
        defer { daemon.stop() }

        var new = configuration
        try new.set("daemon.log_level", .string("debug"))
        try new.set("jobs.max_active", .integer(1234))
        try new.set("socket.mode", .string("0600"))
        try new.set("http.request_timeout", .string("5s"))
        let control = LogLevelControl(.info)
        try daemon.reload(new, levelControl: control)

        #expect(control.current == .debug)
        #expect(daemon.loop.inspect { $0.configuration.maxActiveJobs } == 1234)
        #expect(daemon.loop.inspect { $0.configuration.requestTimeoutNanos } == 30_000_000_000)
        let warnings = messages.all.filter { $0.hasPrefix("warning:") }
        #expect(warnings == ["warning: these settings change only on restart: socket.mode, http.request_timeout"])
    }

    @Test("a reload that raises http.max_connections_per_host and a target's concurrency together applies both; one above it is refused whole")
    func concurrencyAndPoolReloadTogether() throws {
        let directory = TemporaryDirectory()
        var configuration = Configuration()
        configuration.socketPath = directory.path + "/reqd.sock"
        configuration.stateDirectory = directory.path + "/state"
        let daemon = try Daemon.start(configuration: configuration, environment: [:], logger: RecordingLogHandler.Messages().logger(), seed: 1)
        defer { daemon.stop() }
        let pool = configuration.http.maxConnectionsPerHost

        var new = configuration
        try new.set("http.max_connections_per_host", .integer(Int64(pool * 2)))
        try new.scheduler.targets.update("api.example") { $0.concurrency = pool * 2 }
        try daemon.reload(new, levelControl: nil)
        #expect(daemon.loop.inspect { $0.configuration.targets.limits(for: "api.example").concurrency } == pool * 2)
        #expect(daemon.loop.inspect { $0.configuration.targets.defaultConcurrency } == pool * 2, "the setting is every target's default")

        var above = new
        try above.scheduler.targets.update("api.example") { $0.concurrency = pool * 3 }
        try above.set("jobs.max_active", .integer(1234))
        #expect(throws: DaemonError.self) { try daemon.reload(above, levelControl: nil) }
        #expect(daemon.loop.inspect { $0.configuration.maxActiveJobs } != 1234, "nothing of the file was applied")
        #expect(daemon.loop.inspect { $0.configuration.targets.limits(for: "api.example").concurrency } == pool * 2)
    }
}
