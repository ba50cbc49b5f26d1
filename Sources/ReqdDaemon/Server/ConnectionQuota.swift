import ReqdCore
import Synchronization

/// Open connections per uid, against `limits.connections_per_user`.
///
/// The connection handler asks here once it knows the peer's uid, before the scheduler hears of
/// the connection, and a connection over the limit gets one `quota_exceeded` line and is closed.
final class ConnectionQuota: Sendable {
    private struct State {
        var limits: UserLimits
        var open: [UInt32: Int] = [:]
    }

    private let state: Mutex<State>

    /// Starts with `limits`.
    init(_ limits: UserLimits) {
        state = Mutex(State(limits: limits))
    }

    /// Applies reloaded limits; connections already open stay open.
    func update(_ limits: UserLimits) {
        state.withLock { $0.limits = limits }
    }

    /// Counts one more connection of `uid`, or returns why it is refused.
    func admit(_ uid: UInt32) -> String? {
        state.withLock { state in
            let open = state.open[uid] ?? 0
            if state.limits.apply(to: uid), open >= state.limits.connections {
                return "limits.connections_per_user is \(state.limits.connections), and uid \(uid) has \(open) connections open"
            }
            state.open[uid] = open + 1
            return nil
        }
    }

    /// A connection `admit` counted has closed.
    func release(_ uid: UInt32) {
        state.withLock { $0.open.countDown(uid) }
    }
}
