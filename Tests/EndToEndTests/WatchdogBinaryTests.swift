import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// Monotonic nanoseconds, the clock the pings and events are stamped with.
private func monotonicNanos() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: it stamps each message as it comes.
private final class NotifyReceiver: Sendable {
    let path: String
    private let descriptor: Int32
    private let received = Mutex<[(at: UInt64, text: String)]>([])
    private let stopped = Atomic(false)
    private let done = DispatchSemaphore(value: 0)

    init(path: String) throws {
        self.path = path
        descriptor = try NotifySocket.bind(path: path, timeoutMicros: 50_000)
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stopped.load(ordering: .relaxed) {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { continue }
                let message = (monotonicNanos(), String(decoding: buffer[..<count], as: UTF8.self))
                received.withLock { $0.append(message) }
            }
            done.signal()
        }
    }

    /// The instants of the `WATCHDOG=1` messages so far.
    var pings: [UInt64] { received.withLock { $0.filter { $0.text.split(separator: "\n").contains("WATCHDOG=1") }.map(\.at) } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        close(descriptor)
    }
}

/// Instants something was seen at, from another thread.
private final class Arrivals: Sendable {
    let stamps = Mutex<[UInt64]>([])
}

/// Reads newline-ended lines from a connected socket.
private struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32, timeoutSeconds: Int) {
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next line, or nil on timeout or close.
    mutating func next() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = buffer[..<newline]
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

@Suite("The systemd watchdog through a burst of deadlines", .serialized)
struct WatchdogBinaryTests {
    /// A turn of the timer fires at most 256 due entries and posts the rest as turns of their own,
    /// with the timerfd left unarmed meanwhile; each of those turns must ping the watchdog when it
    /// is due, or systemd would kill a daemon busy with a burst longer than `WatchdogSec`.
    @Test("a burst of 40,000 countdowns due at one instant, longer than the watchdog interval, never leaves the watchdog unpinged")
    func burstKeepsPinging() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try NotifyReceiver(path: directory + "/notify")
        defer { receiver.stop() }
        let intervalNanos: UInt64 = 200_000_000
        var environment = ProcessInfo.processInfo.environment.filter { !["http_proxy", "https_proxy", "no_proxy"].contains($0.key.lowercased()) }
        environment["NOTIFY_SOCKET"] = receiver.path
        environment["WATCHDOG_USEC"] = "\(intervalNanos / 1_000)"
        // The watcher gets 40,000 events at once: room for them all, so its connection is not
        // closed (a close is a turn that would fire the rest of the burst at once).
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--set", "socket.max_pending_bytes=67108864"], environment: environment)
        defer { daemon.stop() }

        let count = 40_000
        let watcher = try HTTPGet.open("unix:" + daemon.socket)
        defer { close(watcher) }
        var watching = LineReader(descriptor: watcher, timeoutSeconds: 60)
        watching.write(#"{"id":1,"op":"watch","scope":"burst"}"# + "\n")
        try #require(watching.next() != nil)
        let expiries = Arrivals()
        let watched = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [watching] in
            var reader = watching
            while let line = reader.next() {
                guard String(decoding: line, as: UTF8.self).contains(#""event":"expired""#) else { continue }
                let seen = expiries.stamps.withLock { $0.append(monotonicNanos()); return $0.count }
                if seen == count { break }
            }
            watched.signal()
        }

        // Every countdown is due at the same instant, after all are registered: a debug build on
        // a busy 2-core machine registers 4,000 to 6,500 a second, so room for 2,500 a second.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4 + Double(count) / 2_500).rounded(.up))
        let until = formatter.string(from: due)
        let registrar = try HTTPGet.open("unix:" + daemon.socket)
        defer { close(registrar) }
        var registering = LineReader(descriptor: registrar, timeoutSeconds: 30)
        var acknowledged = 0
        for batch in stride(from: 0, to: count, by: 1_000) {
            var lines = ""
            for index in batch..<min(count, batch + 1_000) {
                lines += #"{"id":\#(index + 2),"op":"register-countdown","until":"\#(until)","tick_ms":3600000,"scope":"burst","ephemeral":true}"# + "\n"
            }
            registering.write(lines)
            for _ in batch..<min(count, batch + 1_000) {
                guard let reply = registering.next() else { break }
                if reply.starts(with: Array(#"{"id":"#.utf8)), String(decoding: reply, as: UTF8.self).contains(#""ok":true"#) { acknowledged += 1 }
            }
        }
        try #require(acknowledged == count)
        try #require(Date() < due.addingTimeInterval(-0.5), "registering took until the burst")

        // Nothing is sent to the daemon from here until the burst has ended: a request's turn
        // would fire every due entry at once.
        #expect(watched.wait(timeout: .now() + 60) == .success)
        try #require(expiries.stamps.withLock { $0.count } == count, "\(expiries.stamps.withLock { $0.count }) of \(count) expiries seen")
        let (first, last) = try expiries.stamps.withLock { (try #require($0.first), try #require($0.last)) }
        let burst = last - first
        #expect(burst > 3 * intervalNanos, "the burst lasted \(burst / 1_000_000) ms: too short to need a ping")
        let pings = receiver.pings
        let before = try #require(pings.last { $0 <= first }, "a ping before the burst")
        let during = [before] + pings.filter { $0 > first && $0 <= last } + [last]
        let longest = zip(during, during.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest < intervalNanos, "the watchdog went \(longest / 1_000_000) ms unpinged during a burst of \(burst / 1_000_000) ms")
        #expect(daemon.process.isRunning)
    }
}
