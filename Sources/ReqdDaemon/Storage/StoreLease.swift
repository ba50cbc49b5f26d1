import Dispatch

/// A daemon's lease on a store that several daemons share. Used on one queue only, the lease
/// keeper's.
protocol StoreLease: AnyObject {
    /// How long the lease lasts without a renewal (`cluster.lease`).
    var leaseNanos: Int64 { get }
    /// When the request that took the lease at start was sent.
    var takenAt: DispatchTime { get }
    /// Renews the lease, committed before it returns: a renewal that returns holds.
    ///
    /// - Throws: `leaseLost` when the lease had expired: other daemons may hold its jobs now.
    func renew() throws(DaemonError)
    /// Looks at the other daemons after a renewal: says when to renew next and whether rows wait
    /// to be claimed.
    func survey() throws(DaemonError) -> LeaseRenewal
    /// Hands `heard` each notice for this daemon from now on: a job of its own that another
    /// daemon ended, a job it waits for that ended elsewhere. Called on any thread.
    func listen(_ heard: @escaping @Sendable (ClusterNotice) -> Void) throws(DaemonError)
    /// Gives the lease up: the daemon's jobs are free for the others at once.
    func leave()
}
