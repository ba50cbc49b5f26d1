import Synchronization

/// The per-connection limits, read by each new connection and changed by reload.
final class LineLimit: Sendable {
    let bytes: Atomic<Int>
    let pendingBytes: Atomic<Int>

    init(_ bytes: Int, pendingBytes: Int) {
        self.bytes = Atomic(bytes)
        self.pendingBytes = Atomic(pendingBytes)
    }
}
