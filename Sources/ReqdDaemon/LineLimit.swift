import ReqdCore
import Synchronization

/// The per-connection limits, read by each new connection and changed by reload, and the count
/// of each uid's connections against `limits.connections_per_user`.
final class LineLimit: Sendable {
    let bytes: Atomic<Int>
    let pendingBytes: Atomic<Int>
    let connections: ConnectionQuota

    init(_ bytes: Int, pendingBytes: Int, limits: UserLimits) {
        self.bytes = Atomic(bytes)
        self.pendingBytes = Atomic(pendingBytes)
        connections = ConnectionQuota(limits)
    }
}
