import ArgumentParser
import Foundation
import Logging
import ReqdDaemon
import ReqdProtocol

/// `reqd`: parse arguments, bootstrap logging, build the daemon, run until signalled.
@main
struct ReqdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reqd",
        abstract: "The reqd daemon: drives HTTP request jobs for local programs.",
        discussion: """
            With no arguments reqd runs on embedded defaults: the socket in $RUNTIME_DIRECTORY, \
            $XDG_RUNTIME_DIR/reqd or /tmp/reqd-UID, the state in $STATE_DIRECTORY, $XDG_STATE_HOME/reqd \
            or ~/.local/state/reqd. Settings come from the defaults, then --config FILE (or $REQD_CONFIG), \
            then REQD_TABLE_KEY environment variables, then flags. SIGHUP reloads; SIGTERM stops.
            """,
        version: ProtocolInfo.softwareVersion)

    @Option(name: .long, help: "A configuration file (TOML).")
    var config: String?

    @Option(name: .long, help: "The socket path (socket.path).")
    var socket: String?

    @Option(name: .customLong("state-dir"), help: "The state directory (storage.state_directory).")
    var stateDirectory: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Option(name: .customLong("log-target"), help: "auto, journal or stderr.")
    var logTarget: String?

    @Option(name: .customLong("set"), help: "Set any setting: --set jobs.retention=2h. Repeatable.")
    var settings: [String] = []

    @Flag(name: .customLong("check-config"), help: "Validate the configuration and exit.")
    var checkConfig = false

    @Flag(name: .customLong("print-config-manual"), help: .hidden)
    var printConfigurationManual = false

    func loader() throws -> ConfigurationLoader {
        var overrides: [(key: String, value: String)] = []
        for setting in settings {
            guard let equals = setting.firstIndex(of: "=") else {
                throw ValidationError("--set takes KEY=VALUE, got '\(setting)'")
            }
            overrides.append((String(setting[..<equals]), String(setting[setting.index(after: equals)...])))
        }
        if let socket { overrides.append(("socket.path", socket)) }
        if let stateDirectory { overrides.append(("storage.state_directory", stateDirectory)) }
        if let logLevel { overrides.append(("daemon.log_level", logLevel)) }
        if let logTarget { overrides.append(("daemon.log_target", logTarget)) }
        let environment = ProcessInfo.processInfo.environment
        return ConfigurationLoader(file: config ?? environment["REQD_CONFIG"], environment: environment, overrides: overrides)
    }

    func run() throws {
        if printConfigurationManual {
            print(Configuration.manualPage(), terminator: "")
            return
        }
        let loader = try loader()
        let configuration: Configuration
        do {
            configuration = try loader.load()
            try configuration.validateForStart()
        } catch {
            FileHandle.standardError.write(Data("reqd: invalid configuration: \(error.message)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        for note in configuration.notes { FileHandle.standardError.write(Data("reqd: \(note)\n".utf8)) }
        if checkConfig {
            print("configuration OK")
            return
        }
        Self.reexecWithHugePages()
        Self.blockHandledSignals()
        let control = LogLevelControl(configuration.logLevel, rate: configuration.logRate)
        LoggingSystem.bootstrap(DaemonLogging.handlerFactory(target: configuration.logTarget, control: control))
        let logger = Logger(label: "reqd")

        let daemon: Daemon
        do {
            daemon = try Daemon.start(
                configuration: configuration, environment: ProcessInfo.processInfo.environment, logger: logger)
        } catch {
            logger.critical("reqd could not start: \(error.message)")
            throw ExitCode(1)
        }

        Self.serveSignals {
            do {
                try daemon.reload(try loader.load(), levelControl: control)
            } catch {
                logger.error("reload refused, keeping the running configuration: \(error)")
            }
        } stop: {
            daemon.stop()
        }
    }
}
