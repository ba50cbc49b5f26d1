import Logging

/// Builds the daemon's log handlers. Only `main` calls `LoggingSystem.bootstrap` with it.
public enum DaemonLogging {
    /// A handler factory for `LoggingSystem.bootstrap`.
    public static func handlerFactory(target: LogTarget, control: LogLevelControl) -> @Sendable (String) -> any LogHandler {
        let useJournal: Bool
        switch target {
        case .auto: useJournal = DaemonLogHandler.stderrIsJournal()
        case .journal: useJournal = true
        case .stderr: useJournal = false
        }
        let destination: DaemonLogHandler.Destination = useJournal ? .journal : .stderr
        control.setSummaryWriter { DaemonLogHandler(destination: destination, control: control).writeSummary($0) }
        return { _ in DaemonLogHandler(destination: destination, control: control) }
    }
}
