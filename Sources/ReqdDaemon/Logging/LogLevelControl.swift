import Logging
import Synchronization

/// The daemon's log level, shared by every handler so that SIGHUP can change it at run time.
public final class LogLevelControl: Sendable {
    private let level: Mutex<Logger.Level>

    /// Creates the control with a starting level.
    public init(_ level: Logger.Level) { self.level = Mutex(level) }

    /// The current level.
    public var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}
