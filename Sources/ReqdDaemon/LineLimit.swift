import ReqdCore
import Synchronization

/// The per-connection limits, read by each new connection and changed by reload, and the count
/// of connections against `socket.max_connections` and `limits.connections_per_user`.
final class LineLimit: Sendable {
    let bytes: Atomic<Int>
    let pendingBytes: Atomic<Int>
    let connections: ConnectionQuota

    init(_ bytes: Int, pendingBytes: Int, limits: UserLimits, maxConnections: Int) {
        self.bytes = Atomic(bytes)
        self.pendingBytes = Atomic(pendingBytes)
        connections = ConnectionQuota(limits, maxConnections: maxConnections)
    }
}
