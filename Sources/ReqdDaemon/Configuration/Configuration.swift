import Glibc
import Logging
import ReqdCore
import ReqdProtocol

/// Every setting of the daemon, with its embedded default. `Configuration.settings` describes each key.
public struct Configuration: Sendable, Equatable {
    public var logLevel: Logger.Level = .info
    /// Log lines a second at most (`LogLevelControl`); 0 for no limit.
    public var logRate: Int = 200
    public var logTarget: LogTarget = .auto
    /// How long before a distant deadline the scheduler's timer wakes first (`WakeupTimer`); 0 for never.
    public var earlyWakeNanos: Int64 = 100_000
    /// The socket path; nil picks one as DESIGN.md says.
    public var socketPath: String?
    public var socketMode: UInt32 = 0o660
    /// A group to give the socket to, so its members may connect.
    public var socketGroup: String?
    public var maxLineBytes: Int = ProtocolInfo.defaultMaxLineBytes
    /// Replies and events a client may leave unread before the daemon closes its connection.
    public var maxPendingBytes: Int = 8 << 20
    /// Client connections open at once, all users; 0 derives it from `RLIMIT_NOFILE` (`DescriptorBudget`).
    public var maxConnections: Int = 0
    /// The state directory; nil picks one as DESIGN.md says.
    public var stateDirectory: String?
    /// Which database keeps the durable jobs.
    public var storage = StorageSettings()
    public var scheduler = SchedulerConfiguration()
    /// The HTTP client's timeouts and limits.
    public var http = HTTPSettings()
    /// Where the metrics endpoint listens; off by default.
    public var metricsListen = MetricsListen.off
    /// Warnings about what was read, such as a retired key that is ignored; the daemon logs them.
    public var notes: [String] = []

    /// Keys that earlier versions took, and why each is now ignored: a file written for them
    /// still starts the daemon.
    static let retiredKeys = [
        "request.resume_spread":
            "request.resume_spread is ignored: held jobs now resume at request.catchup_rate per second per target"
    ]

    /// The embedded defaults.
    public init() {}

    /// The whole-request timeout (`http.request_timeout`): the scheduler's, and the HTTP client's
    /// idle-read guard, which always carries the same value.
    var requestTimeoutNanos: Int64 {
        get { scheduler.requestTimeoutNanos }
        set {
            scheduler.requestTimeoutNanos = newValue
            http.readTimeoutNanos = newValue
        }
    }

    /// `http.max_connections_per_host`: the requests on the wire to one host at most, and so the
    /// concurrency of a target no `[targets]` table gives one.
    var maxConnectionsPerHost: Int {
        get { http.maxConnectionsPerHost }
        set {
            http.maxConnectionsPerHost = newValue
            scheduler.targets.defaultConcurrency = newValue
        }
    }

    /// Every key the file, the environment (`REQD_TABLE_KEY`) and `--set` accept.
    public static let keys = settings.map(\.key)

    /// The environment variable that overrides `key`, such as `REQD_SOCKET_PATH`.
    public static func environmentName(for key: String) -> String {
        "REQD_" + String(key.uppercased().map { $0 == "." ? "_" : $0 })
    }

    /// Sets one key from a value of the file or a string from the environment or a flag; a
    /// retired key only leaves a note.
    mutating func set(_ key: String, _ value: TOMLSubset.Value) throws(DaemonError) {
        if let note = Self.retiredKeys[key] {
            if !notes.contains(note) { notes.append(note) }
            return
        }
        if Self.isTargetKey(key) {
            try setTarget(key, value)
            return
        }
        guard let setting = Self.settingsByKey[key] else { throw .unknownSetting(key) }
        try setting.set(value, in: &self)
    }

    /// Checks what a start would refuse beyond `validate()`: settings that need another (a
    /// PostgreSQL store needs its URL) or this machine (a socket group that exists). `reqd` calls
    /// it before it starts and for `--check-config`, so both refuse such a file with exit 78. Not
    /// part of `validate()`, which a reload and each key alone go through.
    public func validateForStart() throws(DaemonError) {
        if storage.backend == .postgres, storage.postgresAddress == nil {
            throw .invalidSetting("storage.postgres_url", "must be set when storage.backend is postgres")
        }
        if let group = socketGroup, !group.isEmpty, getgrnam(group) == nil {
            throw .invalidSetting("socket.group", "names no group on this machine: '\(group)'")
        }
        if let socketPath, case .unix(let path) = metricsListen, path == socketPath {
            throw .invalidSetting("metrics.listen", "must not be the control socket's path, \(socketPath)")
        }
    }

    /// Checks relations between settings.
    func validate() throws(DaemonError) {
        guard scheduler.defaultTickNanos >= scheduler.minTickNanos else {
            throw .invalidSetting("countdown.default_tick", "must not be below 'countdown.min_tick'")
        }
        guard scheduler.defaultBackoffMaxNanos >= scheduler.defaultBackoffMinNanos else {
            throw .invalidSetting("request.backoff_max", "must not be below 'request.backoff_min'")
        }
        guard scheduler.maxDurationNanos >= scheduler.minTickNanos else {
            throw .invalidSetting("countdown.max_duration", "must not be below 'countdown.min_tick'")
        }
        for (name, limits) in [("default", scheduler.targets.defaults)] + scheduler.targets.tables.sorted(by: { $0.key < $1.key }) {
            if let concurrency = limits.concurrency, concurrency > http.maxConnectionsPerHost {
                throw .invalidSetting(
                    "targets.\(TOMLSubset.written(key: name)).concurrency",
                    "is \(concurrency), above http.max_connections_per_host (\(http.maxConnectionsPerHost)), which caps every host's connections")
            }
        }
    }
}
