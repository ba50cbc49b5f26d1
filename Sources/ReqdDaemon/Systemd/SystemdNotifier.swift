import CSystemd
import Glibc

/// Tells systemd about the daemon's state through `sd_notify`: readiness, status, watchdog, stop.
///
/// Outside systemd (no `NOTIFY_SOCKET`) every call is a cheap no-op.
public struct SystemdNotifier: Sendable {
    /// Whether systemd is listening for notifications.
    public let isEnabled: Bool

    public init() {
        isEnabled = getenv("NOTIFY_SOCKET") != nil
    }

    /// Sends raw `KEY=value` lines.
    public func notify(_ state: String) {
        guard isEnabled else { return }
        _ = sd_notify(0, state)
    }

    /// `READY=1` with a status line.
    public func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// `STATUS=` alone.
    public func status(_ text: String) { notify("STATUS=\(text)") }

    /// `RELOADING=1` with `MONOTONIC_USEC=`, the moment the reload began on `CLOCK_MONOTONIC`:
    /// `Type=notify-reload` (systemd 253 and later) needs it to match the reload to its request;
    /// older systemd ignores the field.
    public func reloading() { notify(Self.reloadingMessage(monotonicMicros: Self.monotonicMicros())) }

    /// The text of a reload's start.
    static func reloadingMessage(monotonicMicros: UInt64) -> String {
        "RELOADING=1\nMONOTONIC_USEC=\(monotonicMicros)"
    }

    /// `CLOCK_MONOTONIC` now, in microseconds.
    static func monotonicMicros() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }

    /// `STOPPING=1`.
    public func stopping() { notify("STOPPING=1\nSTATUS=stopping") }

    /// `WATCHDOG=1`.
    public func watchdog() { notify("WATCHDOG=1") }

    /// The watchdog interval systemd expects pings within, in nanoseconds, or nil when it is off.
    public func watchdogIntervalNanos() -> Int64? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Int64(usec) * 1_000
    }

    /// File descriptors passed by socket activation (LISTEN_FDS), starting at 3.
    public func listenDescriptors() -> [Int32] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }
}
