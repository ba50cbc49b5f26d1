import ReqdProtocol

/// A request job as stored: its settings, written once, and its counters, rewritten after each attempt.
public typealias DeliveryRecord = WorkRecord<DeliverySettings, DeliveryCounters>

extension WorkRecord where Settings == DeliverySettings, Counters == DeliveryCounters {
    /// The stored form of request job `job`'s delivery, with its next attempt projected onto the
    /// wall clock, and its request as it is sent (`HTTPRequestSpec.sent(by:)`).
    init(_ delivery: Delivery, of job: JobID, at now: ClockReading) {
        var settings = DeliverySettings(delivery)
        settings.request = delivery.request.sent(by: job)
        self.init(settings: settings, counters: DeliveryCounters(delivery, at: now))
    }

    /// Request job `job`'s delivery as it resumes: attempts kept, the next one when it was
    /// planned. An attempt that was out when the daemon stopped is sent again, as due since
    /// `createdAt` (no later instant is stored for it).
    ///
    /// A next attempt that fell due while the daemon was down stays in the past: it is overdue,
    /// and waits for a catch-up slot (`CatchupPacer`).
    func resumed(of job: JobID, at now: ClockReading, createdAt: WallTime) -> Delivery? {
        guard settings.maxAttempts > 0 else { return nil }
        let start = now.instant(at: counters.nextAttempt ?? createdAt)
        var delivery = settings.delivery(firstAttempt: start)
        delivery.request = delivery.request.kept(by: job)
        delivery.attempts = UInt32(clamping: counters.attempts)
        delivery.lastStatus = counters.lastStatus
        delivery.lastError = counters.lastError
        return delivery
    }
}
