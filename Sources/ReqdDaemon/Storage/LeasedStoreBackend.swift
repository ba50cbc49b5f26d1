/// A store that several daemons share: each runs only the jobs it holds, under a lease that its
/// heartbeat renews; the jobs of a daemon whose lease expires are free for the others to claim.
protocol LeasedStoreBackend: StoreBackend {
    /// This daemon's lease, renewed on a connection of its own, away from the store's queue.
    var lease: any StoreLease { get }
}
