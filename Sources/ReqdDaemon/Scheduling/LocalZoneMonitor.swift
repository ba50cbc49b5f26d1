import Dispatch
import Glibc

/// Calls back when `/etc/localtime` is replaced or rewritten (`timedatectl set-timezone`), from an
/// inotify watch on `/etc`.
///
/// Schedules given no zone follow the daemon's local zone; on a change their pending elapses are
/// planned again in the new one. The descriptor only becomes readable when something in `/etc`
/// changes, so it never wakes an idle daemon.
final class LocalZoneMonitor {
    private let source: DescriptorReadSource

    /// Starts watching; `onChange` runs on `queue` after each burst of changes that touch
    /// `localtime`. Nil when inotify is refused.
    init?(queue: DispatchQueue, directory: String = "/etc", onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        source = DescriptorReadSource(descriptor: fd, queue: queue) {
            var buffer = [UInt8](repeating: 0, count: 8_192)
            var touched = false
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                touched = touched || Self.names(in: buffer[0..<count]).contains("localtime")
            }
            if touched { onChange() }
        }
    }

    /// The file names of the `inotify_event`s in `bytes`.
    private static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var at = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while at + header <= bytes.endIndex {
            let length = bytes[(at + 12)..<(at + 16)].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
            let nameStart = at + header
            let nameEnd = min(nameStart + length, bytes.endIndex)
            let name = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            names.append(String(decoding: name, as: UTF8.self))
            at = nameStart + length
        }
        return names
    }

    /// Stops watching and closes the descriptor before returning; not from `queue`.
    func cancel() { source.cancel() }

    /// Stops watching; the descriptor is closed soon after.
    func cancelLater() { source.cancelLater() }
}
