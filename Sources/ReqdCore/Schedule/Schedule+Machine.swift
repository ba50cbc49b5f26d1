import ReqdCalendar
import ReqdProtocol

/// A schedule's timing: planning elapses, handling them when the timer fires, and its runs.
extension Schedule {
    /// How many due elapses a calendar rule counts at most after a long downtime, so one firing
    /// stays cheap on the scheduler's queue (an interval's are counted exactly).
    static let countLimit = 1_000

    /// Plans the first elapse strictly after `time`, with its delay.
    mutating func plan(after time: WallTime, id: JobID, random: inout RandomSource) {
        due = rule.next(after: time)
        guard randomizedDelay > 0 else {
            delay = 0
            return
        }
        if fixedDelay {
            // FNV-1a of the id: the same offset for every elapse and after every restart.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in id.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            delay = Int64(hash % UInt64(randomizedDelay + 1))
        } else {
            delay = Int64(random.unit() * Double(randomizedDelay))
        }
    }

    /// When the timer should fire, on the boot-time clock, as of `now`; nil while paused or done.
    func fireInstant(at now: ClockReading) -> Instant? {
        guard !paused, let due else { return nil }
        return now.instant(at: WallTime(nanosecondsSinceEpoch: due.nanosecondsSinceEpoch + delay))
    }

    /// Handles the timer: the elapse (or the several a downtime passed) and what it starts, then
    /// the next elapse, strictly in the future, so a schedule never fires a burst.
    mutating func timerFired(at now: ClockReading, id: JobID, random: inout RandomSource) -> ScheduleFiring {
        guard !paused, let due else { return .idle }
        let fireAt = WallTime(nanosecondsSinceEpoch: due.nanosecondsSinceEpoch + delay)
        guard now.wall >= fireAt else { return .early }
        let lateBy = now.wall.nanosecondsSinceEpoch - fireAt.nanosecondsSinceEpoch
        // Elapses whose (delayed) turn has come: the delay is shorter than the gap between two.
        let count = rule.count(from: due, through: WallTime(nanosecondsSinceEpoch: now.wall.nanosecondsSinceEpoch - delay), limit: Self.countLimit)
        let overdue = count > 1 || lateBy > CatchupPacer.overdueAfter
        // On time, the next elapse is the first not counted here, even one whose time has passed:
        // a delay longer than a later, shorter gap then makes it late, never lost. Overdue (after
        // a downtime or a suspend), it is the first after now: what passed is counted as missed,
        // and a fresh delay must not make a second firing at once.
        let counted = WallTime(nanosecondsSinceEpoch: max(due.nanosecondsSinceEpoch, now.wall.nanosecondsSinceEpoch - delay))
        plan(after: overdue ? now.wall : counted, id: id, random: &random)
        let catchUp = catchUp
        let hasRequest = request != nil
        let overlap = overlap
        return updateHistory { history in
            history.lastElapse = due
            history.lastLateBy = lateBy
            if overdue, catchUp == .none {
                history.missed += count
                return .missed(count: count, lateBy: lateBy)
            }
            let passed = count - 1
            history.missed += passed
            guard hasRequest else {
                history.runs += 1
                return .elapsed(lateBy: lateBy, missed: passed)
            }
            guard let running = history.running else {
                history.runs += 1
                return .run(lateBy: lateBy, missed: passed, replacing: nil)
            }
            switch overlap {
            case .skip:
                history.skipped += 1
                return .skipped(lateBy: lateBy, missed: passed)
            case .queue:
                // One run waits at most: an elapse while one does is skipped, and told so.
                guard !history.queued else {
                    history.skipped += 1
                    return .skipped(lateBy: lateBy, missed: passed)
                }
                history.queued = true
                return .queued(lateBy: lateBy, missed: passed)
            case .replace:
                history.runs += 1
                return .run(lateBy: lateBy, missed: passed, replacing: running)
            }
        }
    }

    /// Records the request job a run started.
    mutating func runStarted(_ job: JobID) {
        updateHistory { history in
            history.running = job
            history.lastRun = job
            history.lastOutcome = nil
        }
    }

    /// A run's request job was retried by hand: while no newer run has started and none is
    /// running, it is the schedule's run again, so the next elapse sees the overlap. Returns
    /// whether it is.
    mutating func runRetried(_ job: JobID) -> Bool {
        guard running == nil, lastRun == job else { return false }
        runStarted(job)
        return true
    }

    /// A run's request job ended. A schedule that has ended itself (`startsQueued` false) records
    /// the outcome and starts nothing.
    mutating func runEnded(_ job: JobID, as state: JobState, startsQueued: Bool = true) -> ScheduleRunEnd {
        guard lastRun == job || running == job else { return .notCurrent }
        return updateHistory { history in
            if history.lastRun == job { history.lastOutcome = state }
            guard history.running == job else { return .notCurrent }
            history.running = nil
            guard history.queued, startsQueued else {
                history.queued = false
                return .ended
            }
            history.queued = false
            history.runs += 1
            return .startQueued
        }
    }

    /// Moves a calendar rule to another zone, as the copy `rules` keeps; an interval has none.
    mutating func rezone(_ zone: ZoneRules, rules: inout ScheduleRuleCache) {
        guard case .calendar(let calendar) = rule else { return }
        rule = rules.shared(.calendar(CalendarRule(Recurrence(pattern: calendar.recurrence.pattern, zone: zone))))
    }

    /// Stops elapses until `resume`; a run in flight goes on.
    mutating func pause() {
        paused = true
        if queued { updateHistory { $0.queued = false } }
    }

    /// Goes on from the next elapse after `now`: what passed while paused is neither run nor missed.
    mutating func resume(at now: ClockReading, id: JobID, random: inout RandomSource) {
        guard paused else { return }
        paused = false
        plan(after: now.wall, id: id, random: &random)
    }

    /// The wall clock was stepped, or the caller gave the rule another zone: plans the pending elapse again.
    /// An elapse the step left in the past stays, and fires as overdue; one the step moved
    /// further away is replaced by the first after now that follows the last one handled.
    /// Returns whether the pending elapse moved.
    @discardableResult
    mutating func replan(at now: ClockReading, id: JobID, random: inout RandomSource) -> Bool {
        guard !paused, let due, due > now.wall else { return false }
        let after = max(now.wall, lastElapse ?? now.wall)
        guard rule.next(after: after) != due else { return false }
        plan(after: after, id: id, random: &random)
        return true
    }
}
