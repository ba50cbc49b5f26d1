/// What a renewal of a daemon's lease found: when to renew next, and whether rows wait for a
/// daemon to claim them.
struct LeaseRenewal: Equatable, Sendable {
    /// How long until the next renewal: a third of the lease, or sooner when another daemon's
    /// lease expires first, so that its jobs are taken over as it expires.
    var nextNanos: Int64
    /// Whether another daemon's lease expired or a daemon left, so that its rows are free.
    var orphans: Bool
}
