import ReqdCalendar
import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let hour = 3600 * second

/// A wall-clock time from `2027-03-28T01:00:00Z`.
private func wall(_ text: String) -> WallTime {
    // Parsed by the calendar engine in UTC: microseconds to nanoseconds.
    WallTime(nanosecondsSinceEpoch: (try! InstantText.parse(text, in: .utc)) * 1000)
}

private func text(_ time: WallTime?) -> String? {
    time.map { InstantText.utc($0.nanosecondsSinceEpoch / 1000) }
}

private func zone(_ name: String) -> ZoneRules { try! ZoneDatabase().zone(named: name) }

private func calendar(_ expression: String, _ zoneName: String) -> ScheduleRule {
    let spec = try! CalendarSpec(parsing: expression) { _ in false }
    return .calendar(CalendarRule(Recurrence(pattern: spec, zone: zone(zoneName))))
}

/// A clock whose boot-time and wall-clock readings move together unless stepped or suspended.
struct ScheduleClock {
    var reading: ClockReading
    init(_ start: String) { reading = ClockReading(instant: Fixture.start, wall: wall(start)) }
    /// Time passes (a suspend too: the boot-time clock counts it).
    mutating func advance(_ nanos: Int64) {
        reading = ClockReading(instant: reading.instant.advanced(by: nanos), wall: WallTime(nanosecondsSinceEpoch: reading.wall.nanosecondsSinceEpoch + nanos))
    }
    /// The wall clock is stepped; the boot-time clock is not.
    mutating func step(_ nanos: Int64) {
        reading.wall = WallTime(nanosecondsSinceEpoch: reading.wall.nanosecondsSinceEpoch + nanos)
    }
    /// Runs the clock to the schedule's next firing.
    mutating func runTo(_ schedule: Schedule) {
        guard let at = schedule.fireInstant(at: reading) else { return }
        advance(at.nanoseconds(since: reading.instant))
    }
}

@Suite("Schedule machine on the injected clock")
struct ScheduleMachineTests {
    let id = JobID("sc_0000000001")

    /// Fires the schedule `count` times, each at its instant; the elapses it handled, in UTC.
    func walk(_ schedule: inout Schedule, _ clock: inout ScheduleClock, _ count: Int) -> [String] {
        var random = RandomSource(seed: 1)
        var seen: [String] = []
        for _ in 0..<count {
            clock.runTo(schedule)
            _ = schedule.timerFired(at: clock.reading, id: id, random: &random)
            seen.append(text(schedule.lastElapse) ?? "none")
        }
        return seen
    }

    @Test("Berlin, 2027: 02:30 daily fires once through the spring gap and once through the repeated hour")
    func berlinFixedTime() {
        var random = RandomSource(seed: 1)
        var clock = ScheduleClock("2027-03-26T12:00:00Z")
        var schedule = Schedule(rule: calendar("*-*-* 02:30", "Europe/Berlin"))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        #expect(walk(&schedule, &clock, 3) == ["2027-03-27T01:30:00Z", "2027-03-28T01:00:00Z", "2027-03-29T00:30:00Z"])
        clock = ScheduleClock("2027-10-29T12:00:00Z")
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        #expect(walk(&schedule, &clock, 3) == ["2027-10-30T00:30:00Z", "2027-10-31T00:30:00Z", "2027-11-01T01:30:00Z"])
        #expect(schedule.missed == 0 && schedule.lastLateBy == 0)
    }

    @Test("New York, 2027: hourly loses no hour in spring and runs both 01:00s in autumn")
    func newYorkHourly() {
        var random = RandomSource(seed: 1)
        var clock = ScheduleClock("2027-03-14T05:30:00Z")
        var schedule = Schedule(rule: calendar("hourly", "America/New_York"))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        // 01:00 EST, then 03:00 EDT: 02:00 does not exist that night.
        #expect(walk(&schedule, &clock, 2) == ["2027-03-14T06:00:00Z", "2027-03-14T07:00:00Z"])
        clock = ScheduleClock("2027-11-07T04:30:00Z")
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        // 00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST.
        #expect(walk(&schedule, &clock, 4) == ["2027-11-07T05:00:00Z", "2027-11-07T06:00:00Z", "2027-11-07T07:00:00Z", "2027-11-07T08:00:00Z"])
    }

    @Test("a suspend across three elapses brings one catch-up run, late from the first, with two missed")
    func suspendCatchUp() {
        var random = RandomSource(seed: 1)
        var clock = ScheduleClock("2027-06-01T09:59:00Z")
        var schedule = Schedule(rule: calendar("hourly", "UTC"), request: Box(Fixture.delivery()))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        // Asleep from 09:59 to 12:30: 10:00, 11:00 and 12:00 pass.
        clock.advance(2 * hour + 31 * 60 * second)
        let firing = schedule.timerFired(at: clock.reading, id: id, random: &random)
        #expect(firing == .run(lateBy: 2 * hour + 30 * 60 * second, missed: 2, replacing: nil))
        #expect(text(schedule.due) == "2027-06-01T13:00:00Z")
        #expect(schedule.runs == 1 && schedule.missed == 2)

        var none = Schedule(rule: calendar("hourly", "UTC"), catchUp: .none, request: Box(Fixture.delivery()))
        var clock2 = ScheduleClock("2027-06-01T09:59:00Z")
        none.plan(after: clock2.reading.wall, id: id, random: &random)
        clock2.advance(2 * hour + 31 * 60 * second)
        #expect(none.timerFired(at: clock2.reading, id: id, random: &random) == .missed(count: 3, lateBy: 2 * hour + 30 * 60 * second))
        #expect(none.runs == 0 && none.missed == 3)
    }

    @Test("a clock stepped back neither fires early nor repeats an elapse; one stepped forward fires as overdue")
    func clockSteps() {
        var random = RandomSource(seed: 1)
        var clock = ScheduleClock("2027-06-01T09:59:00Z")
        var schedule = Schedule(rule: calendar("hourly", "UTC"))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        clock.runTo(schedule)
        #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .elapsed(lateBy: 0, missed: 0))
        // 10:00 handled; the clock goes back to 09:30.
        clock.step(-30 * 60 * second)
        schedule.replan(at: clock.reading, id: id, random: &random)
        #expect(text(schedule.due) == "2027-06-01T11:00:00Z")
        #expect(schedule.fireInstant(at: clock.reading) == clock.reading.instant.advanced(by: 90 * 60 * second))
        // A firing before the wall clock reaches the elapse (armed before a step) waits.
        #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .early)
        // Forward by three hours: 11:00 and 12:00 passed.
        clock.step(3 * hour)
        schedule.replan(at: clock.reading, id: id, random: &random)
        #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .elapsed(lateBy: 90 * 60 * second, missed: 1))
    }

    @Test("a zone change moves the pending elapse to the new zone's wall clock")
    func zoneChange() {
        var random = RandomSource(seed: 1)
        let clock = ScheduleClock("2027-06-01T00:00:00Z")
        var schedule = Schedule(rule: calendar("*-*-* 09:00", "Europe/Berlin"))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        #expect(text(schedule.due) == "2027-06-01T07:00:00Z")
        schedule.rule = calendar("*-*-* 09:00", "America/New_York")
        schedule.replan(at: clock.reading, id: id, random: &random)
        #expect(text(schedule.due) == "2027-06-01T13:00:00Z")
    }

    @Test("overlap: skip counts, queue keeps one waiting, replace cancels the run in flight")
    func overlap() {
        var random = RandomSource(seed: 1)
        let run = JobID("rq_0000000001")
        let cases: [(ScheduleOverlap, ScheduleFiring, ScheduleFiring)] = [
            (.skip, .skipped(lateBy: 0, missed: 0), .skipped(lateBy: 0, missed: 0)),
            (.queue, .queued(lateBy: 0, missed: 0), .skipped(lateBy: 0, missed: 0)),
            (.replace, .run(lateBy: 0, missed: 0, replacing: run), .run(lateBy: 0, missed: 0, replacing: run)),
        ]
        for (policy, second, third) in cases {
            var clock = ScheduleClock("2027-06-01T09:59:00Z")
            var schedule = Schedule(rule: calendar("hourly", "UTC"), overlap: policy, request: Box(Fixture.delivery()))
            schedule.plan(after: clock.reading.wall, id: id, random: &random)
            clock.runTo(schedule)
            #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .run(lateBy: 0, missed: 0, replacing: nil))
            schedule.runStarted(run)
            clock.runTo(schedule)
            #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == second)
            clock.runTo(schedule)
            #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == third)
            switch policy {
            case .skip:
                #expect(schedule.skipped == 2 && schedule.runs == 1)
                let end = schedule.runEnded(run, as: JobState.succeeded)
                #expect(end == .ended)
            case .queue:
                // One waits; the second elapse while one waits is skipped.
                #expect(schedule.skipped == 1 && schedule.queued)
                let end = schedule.runEnded(run, as: JobState.failed)
                #expect(end == .startQueued)
                #expect(schedule.lastOutcome == JobState.failed && schedule.runs == 2 && !schedule.queued)
            case .replace:
                #expect(schedule.runs == 3 && schedule.skipped == 0)
            }
        }
    }

    @Test("a fixed delay is the same for every elapse; a random one stays within its bound")
    func delays() {
        var random = RandomSource(seed: 7)
        var fixed = Schedule(rule: calendar("hourly", "UTC"), randomizedDelay: 600 * second, fixedDelay: true)
        fixed.plan(after: wall("2027-06-01T09:00:00Z"), id: id, random: &random)
        let first = fixed.delay
        fixed.plan(after: wall("2027-06-01T10:00:00Z"), id: id, random: &random)
        #expect(fixed.delay == first && first > 0 && first <= 600 * second)
        var spread = Schedule(rule: calendar("hourly", "UTC"), randomizedDelay: 600 * second)
        var delays: Set<Int64> = []
        for hourIndex in 0..<20 {
            spread.plan(after: WallTime(nanosecondsSinceEpoch: wall("2027-06-01T09:00:00Z").nanosecondsSinceEpoch + Int64(hourIndex) * hour), id: id, random: &random)
            #expect(spread.delay >= 0 && spread.delay <= 600 * second)
            delays.insert(spread.delay)
        }
        #expect(delays.count > 10)
    }

    @Test("a delay longer than a later, shorter gap (`09,10:00`: 23 h, then 1 h) makes the next elapse late, never lost")
    func delayPastAShortGap() {
        var random = RandomSource(seed: 1)
        // Fixed at 90 minutes: the 09:00 elapse fires at 10:30, past the 10:00 one's time.
        var schedule = Schedule(rule: calendar("*-*-* 09,10:00", "UTC"), randomizedDelay: 90 * 60 * second)
        var clock = ScheduleClock("2027-06-01T08:00:00Z")
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        schedule.delay = 90 * 60 * second
        clock.runTo(schedule)
        #expect(text(clock.reading.wall) == "2027-06-01T10:30:00Z")
        #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .elapsed(lateBy: 0, missed: 0))
        #expect(text(schedule.due) == "2027-06-01T10:00:00Z", "the 10:00 elapse is still to come, not tomorrow's 09:00")
        clock.runTo(schedule)
        guard case .elapsed = schedule.timerFired(at: clock.reading, id: id, random: &random) else {
            Issue.record("the 10:00 elapse did not run")
            return
        }
        #expect(text(schedule.lastElapse) == "2027-06-01T10:00:00Z")
        #expect(text(schedule.due) == "2027-06-02T09:00:00Z")
    }

    @Test("after a downtime, a randomized delay never makes a second firing at once: the next elapse is the first after now")
    func delayAfterDowntime() {
        for seed in 1...50 {
            var random = RandomSource(seed: UInt64(seed))
            var schedule = Schedule(rule: calendar("*:0/10", "UTC"), randomizedDelay: 9 * 60 * second)
            var clock = ScheduleClock("2027-06-01T09:00:30Z")
            schedule.plan(after: clock.reading.wall, id: id, random: &random)
            clock.advance(3_600 * second)  // down for an hour
            guard case .elapsed = schedule.timerFired(at: clock.reading, id: id, random: &random) else {
                Issue.record("seed \(seed): no catch-up")
                continue
            }
            let next = schedule.fireInstant(at: clock.reading)
            #expect(next.map { $0 > clock.reading.instant } == true, "seed \(seed): fires again at once")
            #expect(schedule.due.map { $0 > clock.reading.wall } == true, "seed \(seed)")
        }
    }

    @Test("a randomized delay is checked against the rule's next gaps, not only the first")
    func delayCheckedOverGaps() {
        let registeredAt = ClockReading(instant: Fixture.start, wall: wall("2027-06-01T09:30:00Z"))
        let spec = ScheduleSpec(calendar: "*-*-* 09,10:00", tz: "UTC", randomizedDelayMs: 2 * 3_600_000)
        #expect(throws: SchedulerError.self) { try spec.validated(at: registeredAt, limits: SchedulerConfiguration(), zones: .utcOnly) }
        let shorter = ScheduleSpec(calendar: "*-*-* 09,10:00", tz: "UTC", randomizedDelayMs: 30 * 60_000)
        #expect(throws: Never.self) { try shorter.validated(at: registeredAt, limits: SchedulerConfiguration(), zones: .utcOnly) }
    }

    @Test("paused, a schedule never fires; resumed, it goes on from the next future elapse with nothing missed")
    func pauseResume() {
        var random = RandomSource(seed: 1)
        var clock = ScheduleClock("2027-06-01T09:59:00Z")
        var schedule = Schedule(rule: calendar("hourly", "UTC"))
        schedule.plan(after: clock.reading.wall, id: id, random: &random)
        schedule.pause()
        #expect(schedule.fireInstant(at: clock.reading) == nil)
        #expect(schedule.upcoming(3).isEmpty)
        clock.advance(3 * hour)
        #expect(schedule.timerFired(at: clock.reading, id: id, random: &random) == .idle)
        schedule.resume(at: clock.reading, id: id, random: &random)
        #expect(text(schedule.due) == "2027-06-01T13:00:00Z")
        #expect(schedule.upcoming(3).compactMap(text) == ["2027-06-01T13:00:00Z", "2027-06-01T14:00:00Z", "2027-06-01T15:00:00Z"])
        #expect(schedule.missed == 0)
    }

    @Test("every: anchored at registration, and a schedule past its last elapse has none due")
    func everyAndEnd() {
        var random = RandomSource(seed: 1)
        let anchor = wall("2027-06-01T09:00:07Z")
        var every = Schedule(rule: .every(interval: 300 * second, anchor: anchor))
        every.plan(after: wall("2027-06-01T09:12:00Z"), id: id, random: &random)
        #expect(text(every.due) == "2027-06-01T09:15:07Z")
        #expect(every.rule.normalized == "every 5m")
        var once = Schedule(rule: calendar("2027-01-01 00:00", "UTC"))
        once.plan(after: wall("2027-06-01T00:00:00Z"), id: id, random: &random)
        #expect(once.due == nil)
        #expect(once.timerFired(at: ScheduleClock("2027-06-02T00:00:00Z").reading, id: id, random: &random) == .idle)
    }
}
