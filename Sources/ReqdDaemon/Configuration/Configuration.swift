import Logging
import ReqdCore
import ReqdProtocol

/// Every setting of the daemon, with its embedded default. `config/reqd.toml` documents each one.
public struct Configuration: Sendable, Equatable {
    public var logLevel: Logger.Level = .info
    public var logTarget: LogTarget = .auto
    /// The socket path; nil picks one as DESIGN.md says.
    public var socketPath: String?
    public var socketMode: UInt32 = 0o660
    /// A group to give the socket to, so its members may connect.
    public var socketGroup: String?
    public var maxLineBytes: Int = ProtocolInfo.defaultMaxLineBytes
    /// Replies and events a client may leave unread before the daemon closes its connection.
    public var maxPendingBytes: Int = 8 << 20
    /// The state directory; nil picks one as DESIGN.md says.
    public var stateDirectory: String?
    public var scheduler = SchedulerConfiguration()
    /// The HTTP client's timeouts and limits.
    public var http = HTTPSettings()

    /// The embedded defaults.
    public init() {}

    /// Every key the file, the environment (`REQD_TABLE_KEY`) and `--set` accept.
    public static let keys = [
        "daemon.log_level", "daemon.log_target", "socket.path", "socket.mode", "socket.group",
        "socket.max_line_bytes", "socket.max_pending_bytes", "storage.state_directory", "jobs.max_active", "jobs.retention",
        "jobs.max_retained", "countdown.default_tick", "countdown.min_tick", "countdown.max_duration",
        "http.connect_timeout", "http.request_timeout", "http.max_response_bytes", "http.max_request_bytes",
        "http.max_redirects", "http.max_connections_per_host", "http.threads", "poll.min_every", "poll.max_failures",
        "poll.max_backoff", "poll.result_body_bytes", "request.max_attempts", "request.backoff_min", "request.backoff_max",
        "request.dedupe_window", "request.max_retry_after", "request.dead_retention", "request.probe_max",
        "request.resume_spread",
    ]

    /// Keys whose new value takes effect on SIGHUP; the rest need a restart.
    public static let reloadableKeys: Set<String> = [
        "daemon.log_level", "socket.max_line_bytes", "socket.max_pending_bytes", "jobs.max_active", "jobs.retention", "jobs.max_retained",
        "countdown.default_tick", "countdown.min_tick", "countdown.max_duration", "http.max_request_bytes",
        "poll.min_every", "poll.max_failures", "poll.max_backoff", "poll.result_body_bytes", "request.max_attempts",
        "request.backoff_min", "request.backoff_max", "request.dedupe_window", "request.max_retry_after",
        "request.dead_retention", "request.probe_max", "request.resume_spread",
    ]

    /// The environment variable that overrides `key`, such as `REQD_SOCKET_PATH`.
    public static func environmentName(for key: String) -> String {
        "REQD_" + key.uppercased().replacingDots()
    }

    /// Sets one key from a value of the file or a string from the environment or a flag.
    mutating func set(_ key: String, _ value: TOMLSubset.Value) throws(DaemonError) {
        switch key {
        case "daemon.log_level":
            let text = try Self.string(key, value)
            guard let level = Logger.Level(rawValue: text) else {
                let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidSetting(key, "must be one of \(names); got '\(text)'")
            }
            logLevel = level
        case "daemon.log_target":
            let text = try Self.string(key, value)
            guard let target = LogTarget(rawValue: text) else {
                throw .invalidSetting(key, "must be auto, journal or stderr; got '\(text)'")
            }
            logTarget = target
        case "socket.path":
            socketPath = try Self.optionalAbsolutePath(key, value)
        case "socket.mode":
            let mode: Int64
            switch value {
            case .integer(let number): mode = number
            case .string(let text):
                guard let parsed = Int64(text, radix: 8) else {
                    throw .invalidSetting(key, "must be an octal mode such as \"0660\"; got '\(text)'")
                }
                mode = parsed
            default: throw .invalidSetting(key, "must be an octal mode such as \"0660\"")
            }
            guard (0...0o777).contains(mode) else {
                throw .invalidSetting(key, "must be between 0000 and 0777")
            }
            socketMode = UInt32(mode)
        case "socket.group":
            let text = try Self.string(key, value)
            socketGroup = text.isEmpty ? nil : text
        case "socket.max_line_bytes":
            maxLineBytes = Int(try Self.integer(key, value, in: 1_024...(64 << 20)))
        case "socket.max_pending_bytes":
            maxPendingBytes = Int(try Self.integer(key, value, in: 65_536...(1 << 30)))
        case "storage.state_directory":
            stateDirectory = try Self.optionalAbsolutePath(key, value)
        case "jobs.max_active":
            scheduler.maxActiveJobs = Int(try Self.integer(key, value, in: 1...100_000_000))
        case "jobs.retention":
            scheduler.retentionNanos = try Self.duration(key, value, allowZero: true)
        case "jobs.max_retained":
            scheduler.maxRetainedJobs = Int(try Self.integer(key, value, in: 0...100_000_000))
        case "countdown.default_tick":
            scheduler.defaultTickNanos = try Self.duration(key, value)
        case "countdown.min_tick":
            scheduler.minTickNanos = try Self.duration(key, value)
        case "countdown.max_duration":
            scheduler.maxDurationNanos = try Self.duration(key, value)
        case "http.connect_timeout":
            http.connectTimeoutNanos = try Self.duration(key, value)
        case "http.request_timeout":
            scheduler.requestTimeoutNanos = try Self.duration(key, value)
            http.readTimeoutNanos = scheduler.requestTimeoutNanos
        case "http.max_response_bytes":
            http.maxResponseBytes = Int(try Self.integer(key, value, in: 1_024...(1 << 31)))
        case "http.max_request_bytes":
            scheduler.maxRequestBodyBytes = Int(try Self.integer(key, value, in: 0...(64 << 20)))
        case "http.max_redirects":
            http.maxRedirects = Int(try Self.integer(key, value, in: 0...50))
        case "http.max_connections_per_host":
            http.maxConnectionsPerHost = Int(try Self.integer(key, value, in: 1...10_000))
        case "http.threads":
            http.threads = Int(try Self.integer(key, value, in: 1...64))
        case "poll.min_every":
            scheduler.minPollEveryNanos = try Self.duration(key, value)
        case "poll.max_failures":
            scheduler.defaultMaxFailures = Int(try Self.integer(key, value, in: 1...1_000_000))
        case "poll.max_backoff":
            scheduler.maxPollBackoffNanos = try Self.duration(key, value)
        case "poll.result_body_bytes":
            scheduler.resultBodyBytes = Int(try Self.integer(key, value, in: 0...(1 << 20)))
        case "request.max_attempts":
            scheduler.defaultMaxAttempts = Int(try Self.integer(key, value, in: 1...1_000))
        case "request.backoff_min":
            scheduler.defaultBackoffMinNanos = try Self.duration(key, value)
        case "request.backoff_max":
            scheduler.defaultBackoffMaxNanos = try Self.duration(key, value)
        case "request.dedupe_window":
            scheduler.dedupeWindowNanos = try Self.duration(key, value, allowZero: true)
        case "request.max_retry_after":
            scheduler.maxRetryAfterNanos = try Self.duration(key, value, allowZero: true)
        case "request.dead_retention":
            scheduler.deadRetentionNanos = try Self.duration(key, value)
        case "request.probe_max":
            scheduler.probeMaxNanos = try Self.duration(key, value)
        case "request.resume_spread":
            scheduler.resumeSpreadNanos = try Self.duration(key, value, allowZero: true)
        default:
            throw .unknownSetting(key)
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
    }

    private static func string(_ key: String, _ value: TOMLSubset.Value) throws(DaemonError) -> String {
        guard case .string(let text) = value else {
            throw .invalidSetting(key, "must be a string")
        }
        return text
    }

    /// An absolute path, or nil for the empty string (which selects the default place).
    private static func optionalAbsolutePath(_ key: String, _ value: TOMLSubset.Value) throws(DaemonError) -> String? {
        let text = try string(key, value)
        guard text.isEmpty || text.hasPrefix("/") else {
            throw .invalidSetting(key, "must be an absolute path; got '\(text)'")
        }
        return text.isEmpty ? nil : text
    }

    private static func integer(_ key: String, _ value: TOMLSubset.Value, in range: ClosedRange<Int64>) throws(DaemonError) -> Int64 {
        let number: Int64?
        switch value {
        case .integer(let integer): number = integer
        case .string(let text): number = Int64(text)
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw .invalidSetting(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func duration(_ key: String, _ value: TOMLSubset.Value, allowZero: Bool = false) throws(DaemonError) -> Int64 {
        let nanos: Int64?
        switch value {
        case .string(let text): nanos = DurationText.parseNanoseconds(text)
        case .integer(let seconds): nanos = DurationText.fromSeconds(Double(seconds))
        case .float(let seconds): nanos = DurationText.fromSeconds(seconds)
        case .boolean: nanos = nil
        }
        guard let nanos, allowZero ? nanos >= 0 : nanos > 0 else {
            throw .invalidSetting(
                key, "must be a \(allowZero ? "non-negative" : "positive") duration such as \"1s\", \"15m\" or \"1h30m\"")
        }
        return nanos
    }
}

extension String {
    fileprivate func replacingDots() -> String { String(map { $0 == "." ? "_" : $0 }) }
}
