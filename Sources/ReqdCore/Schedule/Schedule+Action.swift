/// A schedule's timer entry in the vocabulary every kind shares.
extension Schedule {
    /// Arms the timer for the pending elapse; ends the schedule when its rule has none left and
    /// no run is going (a run in flight ends first, and its end comes back here).
    func advance(at now: ClockReading) -> JobAction {
        if let fire = fireInstant(at: now) { return JobAction(deadline: .set(fire)) }
        if paused || running != nil || due != nil { return JobAction(deadline: .clear) }
        return JobAction(deadline: .clear, end: JobEnd(.completed))
    }
}
