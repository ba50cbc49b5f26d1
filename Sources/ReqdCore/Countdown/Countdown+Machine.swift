import ReqdProtocol

/// A countdown's events, in the vocabulary every kind shares.
extension Countdown {
    /// Plans the countdown's next need for the timer.
    func advance(at now: Instant, watched: Bool) -> JobAction {
        JobAction(deadline: .set(nextFire(at: now, watched: watched)))
    }

    /// Handles the countdown's timer: a tick for its watchers, or its expiry (and the `on_expire`
    /// request, which starts as a job of its own).
    mutating func timerFired(at now: ClockReading, watched: Bool) -> JobAction {
        switch fire(at: now.instant) {
        case .tick(let remainingMs):
            return JobAction(deadline: .set(nextFire(at: now.instant, watched: watched)), notes: [JobNote(.tick, remainingMs: remainingMs)])
        case .expired:
            return JobAction(end: JobEnd(.expired, report: onExpire?.value))
        }
    }
}
