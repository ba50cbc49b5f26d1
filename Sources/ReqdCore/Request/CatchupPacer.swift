/// Spreads the HTTP work that overdue jobs start, per target, so that coming back from downtime
/// is not a burst.
///
/// After a restart or a resume from suspend, every `on_expire` request, retry and poll that fell
/// due meanwhile is due at once. Expiry events still fire at once, each with its `late_by`; the
/// requests they start wait here for a slot: at most `rate` per second per target (an origin:
/// scheme, host and port), the first at once. Jobs released after an outage take slots the same way.
/// Work that is due on time never waits here and takes no slot.
struct CatchupPacer: Sendable {
    /// How late a start must be to count as overdue: far more than any turn or tick is late in
    /// normal running, far less than a restart takes.
    static let overdueAfter: Int64 = 1_000_000_000

    /// The earliest instant the next slot to each target may go.
    private var nextSlot: [String: Instant] = [:]

    /// When a start due at `due` to `origin` may go: `now` unless it is overdue, otherwise the next
    /// free slot, which it takes.
    mutating func slot(for origin: String, due: Instant, at now: Instant, rate: Int) -> Instant {
        guard now.nanoseconds(since: due) > Self.overdueAfter else { return now }
        return take(origin, at: now, rate: rate)
    }

    /// Takes the next free slot to `origin`: `now` when none is taken after it; `now` always when
    /// `rate` is 0 (pacing off).
    mutating func take(_ origin: String, at now: Instant, rate: Int) -> Instant {
        guard rate > 0 else { return now }
        if nextSlot.count > 4_096 { nextSlot = nextSlot.filter { $0.value > now } }
        let slot = max(now, nextSlot[origin] ?? now)
        nextSlot[origin] = slot.advanced(by: 1_000_000_000 / Int64(rate))
        return slot
    }
}

extension CatchupPacer: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { nextSlot.shrink(&budget) }
}
