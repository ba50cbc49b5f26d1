/// Tables that shrink after a burst: the shrink pass, in bounded slices on the one timer.
extension Scheduler {
    /// Arms the `.shrink` timer when a pass is due and none is armed.
    mutating func scheduleShrinkIfDue(at now: ClockReading) {
        guard shrinking.isDue else { return }
        shrinking.scheduled()
        timers.set(.shrink, priority: now.instant.advanced(by: ShrinkPass.settleNanos))
    }

    /// Runs one slice of the pass: as many parts as one `ShrinkBudget` covers. Arms the next
    /// slice, or ends the walk and asks the daemon to give memory back when it freed any. While
    /// ended jobs are still being forgotten in shares, the pass waits; a slice waits for a
    /// moment with no deadline within `ShrinkPass.sliceRoomNanos` (`roomWait`).
    mutating func shrinkSlice(at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let releaseBy = shrinking.releaseBy {
            releaseMemoryWhenQuiet(by: releaseBy, at: now, into: &effects)
            return
        }
        if timers.contains(.retention) {
            shrinking.waitsForForgetting()
            timers.set(.shrink, priority: now.instant.advanced(by: ShrinkPass.forgettingWaitNanos))
            return
        }
        if let resume = shrinking.roomWait(before: timers.min?.priority, at: now.instant) {
            timers.set(.shrink, priority: resume)
            return
        }
        var budget = ShrinkBudget()
        var more = true
        while !budget.isSpent, more {
            var step = shrinking.step
            let through = shrink(shrinking.part, from: &step, &budget)
            shrinking.step = step
            guard through else { break }
            more = shrinking.advance()
        }
        shrinking.sliceEnded(budget)
        if !budget.disposal.isEmpty { effects.append(.dispose(budget.disposal)) }
        if more {
            timers.set(.shrink, priority: now.instant.advanced(by: ShrinkPass.sliceGapNanos))
            return
        }
        shrinking.walked(at: now.instant)
        if let releaseBy = shrinking.releaseBy { releaseMemoryWhenQuiet(by: releaseBy, at: now, into: &effects) }
    }

    /// Asks the daemon to give memory back when no deadline falls within `ShrinkPass.quietNanos`
    /// or `releaseBy` has come; otherwise looks again 10 ms after the next deadline. On a daemon
    /// with a deadline at least every 50 ms for 10 s, the trim then runs anyway: measured with
    /// deadlines every 2.7 ms, a forced trim of 46–62 ms made none later than 3.9 ms
    /// (BENCHMARKS.md, "Memory that comes back").
    private mutating func releaseMemoryWhenQuiet(by releaseBy: Instant, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let next = timers.min?.priority, next < now.instant.advanced(by: ShrinkPass.quietNanos), now.instant < releaseBy {
            timers.set(.shrink, priority: max(next, now.instant).advanced(by: ShrinkPass.quietNanos / 5))
            return
        }
        effects.append(.releaseMemory)
        shrinking.released()
    }

    /// Shrinks one part from `step` on; true once it is through.
    private mutating func shrink(_ part: ShrinkPass.Part, from step: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        switch part {
        case .jobs: return table.shrink(from: &step, &budget)
        case .timers: return timers.shrink(from: &step, &budget)
        case .dedupe: return dedupe.shrink(from: &step, &budget)
        case .subscriptions: return subscriptions.shrink(&budget)
        case .commits: return commits.shrink(&budget)
        case .ledger: return ledger.shrink(&budget)
        case .network: return network.shrink(&budget)
        case .catchup: return catchup.shrink(&budget)
        }
    }
}
