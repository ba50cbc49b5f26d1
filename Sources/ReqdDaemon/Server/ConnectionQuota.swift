import ReqdCore
import ReqdProtocol
import Synchronization

/// Open connections, all together against `socket.max_connections` and per uid against
/// `limits.connections_per_user`.
///
/// The connection handler asks here once it knows the peer's uid, before the scheduler hears of
/// the connection, and a connection over either limit gets one error line and is closed.
final class ConnectionQuota: Sendable {
    private struct State {
        var limits: UserLimits
        var maxConnections: Int
        var open: [UInt32: Int] = [:]
        var total = 0
    }

    private let state: Mutex<State>

    /// Starts with `limits` and a cap of `maxConnections`.
    init(_ limits: UserLimits, maxConnections: Int) {
        state = Mutex(State(limits: limits, maxConnections: maxConnections))
    }

    /// Applies reloaded limits; connections already open stay open.
    func update(_ limits: UserLimits, maxConnections: Int) {
        state.withLock {
            $0.limits = limits
            $0.maxConnections = maxConnections
        }
    }

    /// Counts one more connection of `uid`, or returns the error line that refuses it:
    /// `too_many_connections` at the cap, `quota_exceeded` over the user's limit.
    func admit(_ uid: UInt32) -> WireError? {
        state.withLock { state in
            if state.total >= state.maxConnections {
                return WireError(
                    .tooManyConnections,
                    "socket.max_connections is \(state.maxConnections), and \(state.total) connections are open; this connection is closed")
            }
            let open = state.open[uid] ?? 0
            if state.limits.apply(to: uid), open >= state.limits.connections {
                return WireErrorMapping.connectionRefused(
                    "limits.connections_per_user is \(state.limits.connections), and uid \(uid) has \(open) connections open")
            }
            state.open[uid] = open + 1
            state.total += 1
            return nil
        }
    }

    /// A connection `admit` counted has closed.
    func release(_ uid: UInt32) {
        state.withLock {
            $0.open.countDown(uid)
            $0.total -= 1
        }
    }

    /// Connections counted now.
    var count: Int { state.withLock { $0.total } }
}
