import Glibc

/// How the daemon shares its open-file limit (`RLIMIT_NOFILE`) between client connections and
/// everything else: the store, the journal, netlink, timers, event loops and outbound HTTP.
enum DescriptorBudget {
    /// Descriptors kept for the daemon's own files and loops, whatever the limit.
    static let fixedReserve = 64

    /// The soft open-file limit now, capped at `Int32.max` (unlimited is the largest `rlim_t`).
    static var openFileLimit: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// The connection cap: `configured` when set, otherwise half of what the fixed reserve leaves,
    /// the other half kept for outbound HTTP, and never below 8.
    static func maxConnections(configured: Int, openFileLimit: Int) -> Int {
        configured > 0 ? configured : max(8, (openFileLimit - fixedReserve) / 2)
    }
}
