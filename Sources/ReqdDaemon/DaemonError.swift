/// Why the daemon could not start or reload.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: Sendable {
        case socketPathTooLong
        case alreadyRunning
        case socketPathInUse
        case socketSetupFailed
        case stateDirectoryUnusable
        case storageFailed
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
