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
