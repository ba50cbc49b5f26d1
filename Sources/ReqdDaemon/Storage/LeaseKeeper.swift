import Dispatch
import Glibc
import Synchronization

/// Keeps a daemon's lease on a shared store: renews it on a queue of its own, has the rows that
/// other daemons leave claimed, and reports the lease lost when it expired or when no renewal
/// came in time.
///
/// The watchdog runs on another queue, so a renewal stuck waiting for the database cannot hold it
/// back: it fires a tenth of the lease before the database would let the lease go, counted from
/// when the last renewal that held was sent. That holds while the database's clock runs at the
/// pace of this host's monotonic clock; a step of the database's clock forward by more than a
/// tenth of the lease can let another daemon reap this one before its watchdog fires.
final class LeaseKeeper: @unchecked Sendable {
    // @unchecked Sendable: the timers are dispatch sources, which may be scheduled and cancelled
    // from any thread; `ended` is atomic and `lost` is Sendable.
    private let queue = DispatchQueue(label: "reqd.lease")
    private let timer: any DispatchSourceTimer
    private let watchdog: any DispatchSourceTimer
    private let ended = Atomic<Bool>(false)
    /// Until when the lease surely holds, in nanoseconds since boot: the watchdog's deadline on
    /// a clock that also counts a suspended machine's sleep, as the database's clock does.
    private let validUntil = Atomic<UInt64>(0)
    private let lost: @Sendable (DaemonError) -> Void

    /// Starts renewing `lease` a third of the lease from now.
    ///
    /// - Parameters:
    ///   - takeOver: called after each renewal, on the keeper's queue, with whether rows wait to
    ///     be claimed; it claims them elsewhere, without waiting.
    ///   - lost: called once, on any thread, when the lease is lost; nothing is renewed after it.
    init(
        lease: any StoreLease, takeOver: @escaping @Sendable (_ orphans: Bool) -> Void, lost: @escaping @Sendable (DaemonError) -> Void
    ) {
        // The lease is used on `queue` only, from here on.
        nonisolated(unsafe) let lease = lease
        let leaseNanos = lease.leaseNanos
        self.lost = lost
        timer = DispatchSource.makeTimerSource(queue: queue)
        watchdog = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reqd.lease-watchdog"))
        timer.setEventHandler { [weak self] in
            guard let self, !ended.load(ordering: .sequentiallyConsistent) else { return }
            let sent = DispatchTime.now()
            let sentSinceBoot = Self.sinceBoot()
            var next = Int64(1_000_000_000)
            do throws(DaemonError) {
                try lease.renew()
                validUntil.store(sentSinceBoot + UInt64(leaseNanos - leaseNanos / 10), ordering: .relaxed)
                watchdog.schedule(deadline: Self.deadline(since: sent, leaseNanos: leaseNanos))
                // What the others are up to matters less: a failure here only delays a takeover.
                let survey = try lease.survey()
                next = survey.nextNanos
                takeOver(survey.orphans)
            } catch where error.code == .leaseLost {
                return lose(error)
            } catch {
                // The database is out of reach: try again in a second, while the watchdog runs.
                next = min(next, 1_000_000_000)
            }
            timer.schedule(deadline: .now() + .nanoseconds(Int(max(next, 1_000_000))))
        }
        watchdog.setEventHandler { [weak self] in
            self?.lose(DaemonError(.leaseLost, "no renewal of this daemon's lease held within \(leaseNanos / 1_000_000) ms"))
        }
        let first = Self.deadline(since: lease.takenAt, leaseNanos: leaseNanos)
        let age = DispatchTime.now().uptimeNanoseconds - min(lease.takenAt.uptimeNanoseconds, DispatchTime.now().uptimeNanoseconds)
        validUntil.store(Self.sinceBoot() - age + UInt64(leaseNanos - leaseNanos / 10), ordering: .relaxed)
        watchdog.schedule(deadline: first)
        timer.schedule(deadline: .now() + .nanoseconds(Int(leaseNanos / 3)))
        watchdog.activate()
        timer.activate()
    }

    /// Whether the lease surely holds now; when it does not, reports it lost. Checked as each
    /// request starts, so that a daemon that was paused past its lease (SIGSTOP, a suspended
    /// machine) starts none when it wakes, whichever of its threads runs first.
    func holds() -> Bool {
        guard Self.sinceBoot() >= validUntil.load(ordering: .relaxed) else { return true }
        lose(DaemonError(.leaseLost, "the lease may have expired: no renewal held in time"))
        return false
    }

    /// Reports the lease lost, once: a renewal or a commit found it expired.
    func lose(_ error: DaemonError) {
        guard !ended.exchange(true, ordering: .sequentiallyConsistent) else { return }
        timer.cancel()
        watchdog.cancel()
        lost(error)
    }

    /// Stops renewing, as when the daemon stops, and waits for a renewal under way; the lease is
    /// not reported lost.
    func cancel() {
        ended.store(true, ordering: .sequentiallyConsistent)
        timer.cancel()
        watchdog.cancel()
        queue.sync {}
    }

    /// `CLOCK_BOOTTIME` in nanoseconds.
    private static func sinceBoot() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// A tenth of the lease before a lease renewed at `sent` expires.
    private static func deadline(since sent: DispatchTime, leaseNanos: Int64) -> DispatchTime {
        sent + .nanoseconds(Int(leaseNanos - leaseNanos / 10))
    }
}
