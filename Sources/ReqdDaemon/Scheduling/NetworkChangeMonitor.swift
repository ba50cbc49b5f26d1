import CSystemd
import Dispatch
import Glibc

/// Calls back when a network link, address or route changes, from a netlink socket.
///
/// Request jobs held for an unreachable target are probed at once on such a change, so they
/// resume within moments of the route coming back instead of at the next timed probe. The socket
/// only becomes readable when the kernel reports a change, so it never wakes an idle daemon.
final class NetworkChangeMonitor {
    private let source: DescriptorReadSource

    /// Starts watching; `onChange` runs on `queue` once per burst of changes. Nil when netlink is refused.
    init?(queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        guard let fd = Self.open() else { return nil }
        source = DescriptorReadSource(descriptor: fd, queue: queue) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            // Drain every queued message (an overrun, ENOBUFS, also means "something changed").
            while true {
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 || (count < 0 && errno == ENOBUFS) { continue }
                break
            }
            onChange()
        }
    }

    /// A non-blocking netlink socket subscribed to every link, address and route change; nil
    /// (with `errno` set) when the kernel or a sandbox refuses it.
    private static func open() -> Int32? {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_NETLINK, type, reqd_netlink_route())
        guard fd >= 0 else { return nil }
        var address = reqd_sockaddr_nl(
            nl_family: UInt16(AF_NETLINK), nl_pad: 0, nl_pid: 0, nl_groups: reqd_route_change_groups())
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<reqd_sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let saved = errno
            close(fd)
            errno = saved
            return nil
        }
        return fd
    }

    /// Stops watching and closes the socket before returning; not from `queue`.
    func cancel() { source.cancel() }

    /// Stops watching; the socket is closed soon after.
    func cancelLater() { source.cancelLater() }
}
