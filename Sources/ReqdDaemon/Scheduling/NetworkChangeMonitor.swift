import CSystemd
import Dispatch
import Glibc

/// Calls back when a network link, address or route changes, from a netlink socket.
///
/// Request jobs held for an unreachable target are probed at once on such a change, so they
/// resume within moments of the route coming back instead of at the next timed probe. The socket
/// only becomes readable when the kernel reports a change, so it never wakes an idle daemon.
final class NetworkChangeMonitor {
    private let source: DispatchSourceRead

    /// Starts watching; `onChange` runs on `queue` once per burst of changes. Nil when netlink is refused.
    init?(queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        let fd = reqd_route_monitor_open()
        guard fd >= 0 else { return nil }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            // Drain every queued message (an overrun, ENOBUFS, also means "something changed").
            while true {
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 || (count < 0 && errno == ENOBUFS) { continue }
                break
            }
            onChange()
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    /// Stops watching and closes the socket.
    func cancel() { source.cancel() }
}
