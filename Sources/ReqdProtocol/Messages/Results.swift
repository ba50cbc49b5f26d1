/// The `hello` result.
public struct HelloResult: Codable, Sendable, Hashable {
    public var protocolVersion: Int
    public var server: String
    public var version: String
    /// The uid the daemon sees this connection as.
    public var uid: UInt32

    public init(protocolVersion: Int, server: String, version: String, uid: UInt32) {
        self.protocolVersion = protocolVersion
        self.server = server
        self.version = version
        self.uid = uid
    }

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case server, version, uid
    }
}

/// The result of a registration.
public struct RegisterResult: Codable, Sendable, Hashable {
    public var job: JobInfo
    /// The id of the running job with the same key that this registration replaced.
    public var replaced: String?
    /// True when an identical request inside the dedupe window already made `job`; nothing new was created.
    public var deduplicated: Bool?

    public init(job: JobInfo, replaced: String?, deduplicated: Bool? = nil) {
        self.job = job
        self.replaced = replaced
        self.deduplicated = deduplicated
    }
}

/// The result of `cancel`.
public struct CancelResult: Codable, Sendable, Hashable {
    /// The ids of the jobs this request cancelled.
    public var cancelled: [String]
    public var count: Int

    public init(cancelled: [String]) {
        self.cancelled = cancelled
        self.count = cancelled.count
    }
}

/// The result of `status` without a job: the daemon summary.
public struct DaemonSummary: Codable, Sendable, Hashable {
    public var version: String
    public var protocolVersion: Int
    public var pid: Int32?
    public var startedAt: WallTime
    public var uptimeMs: Int64
    /// Job counts by kind, then by state. Non-root callers see only their own jobs counted.
    public var jobs: [String: [String: Int]]
    /// Open client connections.
    public var connections: Int
    /// Whether request jobs wait for unreachable targets.
    public var network: NetworkSummary

    public init(
        version: String, protocolVersion: Int, pid: Int32?, startedAt: WallTime, uptimeMs: Int64,
        jobs: [String: [String: Int]], connections: Int, network: NetworkSummary = NetworkSummary(state: .online)
    ) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.startedAt = startedAt
        self.uptimeMs = uptimeMs
        self.jobs = jobs
        self.connections = connections
        self.network = network
    }

    enum CodingKeys: String, CodingKey {
        case version
        case protocolVersion = "protocol"
        case pid
        case startedAt = "started_at"
        case uptimeMs = "uptime_ms"
        case jobs, connections, network
    }
}

/// The daemon's view of the network, as the summary shows it.
///
/// It is `offline` while some request target is unreachable (no route to it, or DNS failing for
/// now): jobs for such targets are held without spending attempts, and resume once it answers.
public struct NetworkSummary: Codable, Sendable, Hashable {
    /// Online or offline.
    public enum State: String, Codable, Sendable, Hashable {
        case online, offline
    }

    public var state: State
    /// When the first target still unreachable became so.
    public var offlineSince: WallTime?
    /// Request jobs waiting for their target (the caller's own, unless root).
    public var heldJobs: Int
    /// Targets (scheme, host and port) found unreachable.
    public var unreachableTargets: Int

    public init(state: State, offlineSince: WallTime? = nil, heldJobs: Int = 0, unreachableTargets: Int = 0) {
        self.state = state
        self.offlineSince = offlineSince
        self.heldJobs = heldJobs
        self.unreachableTargets = unreachableTargets
    }

    enum CodingKeys: String, CodingKey {
        case state
        case offlineSince = "offline_since"
        case heldJobs = "held_jobs"
        case unreachableTargets = "unreachable_targets"
    }
}

/// The result of `status JOB_ID` and `wait`.
public struct JobResult: Codable, Sendable, Hashable {
    public var job: JobInfo

    public init(job: JobInfo) { self.job = job }
}

/// The result of `list`.
public struct JobListResult: Codable, Sendable, Hashable {
    public var jobs: [JobInfo]
    /// True when more jobs matched than `limit` allowed.
    public var truncated: Bool

    public init(jobs: [JobInfo], truncated: Bool) {
        self.jobs = jobs
        self.truncated = truncated
    }
}

/// The result of `watch`: the job's current view, or the scope's current jobs.
public struct WatchResult: Codable, Sendable, Hashable {
    /// The watched job, when watching one job. If it has already ended, no events follow.
    public var job: JobInfo?
    /// The watched scope, when watching a scope.
    public var scope: String?
    /// Whether events will follow on this connection.
    public var streaming: Bool

    public init(job: JobInfo?, scope: String?, streaming: Bool) {
        self.job = job
        self.scope = scope
        self.streaming = streaming
    }
}

/// The result of `unwatch`.
public struct UnwatchResult: Codable, Sendable, Hashable {
    public var removed: Int

    public init(removed: Int) { self.removed = removed }
}
