/// Why the daemon could not start or reload, the store could not read or write, or a setting was refused:
/// the one error type of the ReqdDaemon module.
///
/// Shaped like swift-service-lifecycle's `ServiceGroupError`: a struct over a `Code` that wraps a private
/// enum, so a new code breaks no caller's `switch`, and callers test `error.code == .alreadyRunning`.
/// Messages that recur are written once, in the static factories below. A message names keys, paths
/// and the value a setting was given (a PostgreSQL URL without its password), never anything else the daemon holds.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case socketPathTooLong, alreadyRunning, socketPathInUse, socketSetupFailed
            case stateDirectoryUnusable, stateDirectoryLocked, storageFailed
            case storeOpenFailed, storeWriteFailed, storeFull, storeDamaged, unsupportedStoreVersion, leaseLost
            case configurationUnreadable, malformedConfiguration, unknownSetting, invalidSetting
            case httpSetupFailed
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The socket path does not fit a `sockaddr_un`.
        public static let socketPathTooLong = Code(.socketPathTooLong)
        /// Another daemon accepts connections on the socket path.
        public static let alreadyRunning = Code(.alreadyRunning)
        /// Something that is not a socket sits at the socket path.
        public static let socketPathInUse = Code(.socketPathInUse)
        /// The socket, its directory or its permissions could not be set up.
        public static let socketSetupFailed = Code(.socketSetupFailed)
        /// The HTTP client's target gate could not listen on loopback.
        public static let httpSetupFailed = Code(.httpSetupFailed)
        /// The state directory cannot be created or used.
        public static let stateDirectoryUnusable = Code(.stateDirectoryUnusable)
        /// Another daemon holds the state directory's lock.
        public static let stateDirectoryLocked = Code(.stateDirectoryLocked)
        /// The job store could not be opened or read at start-up.
        public static let storageFailed = Code(.storageFailed)
        /// SQLite could not open the database file, or PostgreSQL could not be reached.
        public static let storeOpenFailed = Code(.storeOpenFailed)
        /// A statement or transaction of the store failed.
        public static let storeWriteFailed = Code(.storeWriteFailed)
        /// The disk holding the store is full.
        public static let storeFull = Code(.storeFull)
        /// The database file failed its integrity check.
        public static let storeDamaged = Code(.storeDamaged)
        /// The database file was written by a newer reqd.
        public static let unsupportedStoreVersion = Code(.unsupportedStoreVersion)
        /// This daemon's lease on its PostgreSQL jobs expired: other daemons may run them now.
        public static let leaseLost = Code(.leaseLost)
        /// The configuration file cannot be read.
        public static let configurationUnreadable = Code(.configurationUnreadable)
        /// A line of the configuration file is not the TOML that reqd reads.
        public static let malformedConfiguration = Code(.malformedConfiguration)
        /// A key that no setting has.
        public static let unknownSetting = Code(.unknownSetting)
        /// A setting's value is refused, alone or next to another setting.
        public static let invalidSetting = Code(.invalidSetting)

        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, for a person; also the `description`.
    public let message: String
    /// The setting the error is about, such as `socket.mode`, when it is about one.
    public let key: String?

    /// An error of `code`; a configuration error names its `key` where it has one.
    public init(_ code: Code, _ message: String, key: String? = nil) {
        self.code = code
        self.message = message
        self.key = key
    }

    public var description: String { message }

    /// A key that no setting has.
    static func unknownSetting(_ key: String) -> DaemonError {
        DaemonError(.unknownSetting, "unknown setting '\(key)'", key: key)
    }

    /// A refused value of `key`; `problem` goes on from the key, as in "must be a string".
    static func invalidSetting(_ key: String, _ problem: String) -> DaemonError {
        DaemonError(.invalidSetting, "'\(key)' \(problem)", key: key)
    }

    /// The same error with where its value came from put in front, as in `reqd.toml:3: …`.
    func from(_ origin: String) -> DaemonError {
        DaemonError(code, "\(origin): \(message)", key: key)
    }
}
