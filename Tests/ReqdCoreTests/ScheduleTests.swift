import ReqdCalendar
import ReqdProtocol
import Synchronization
import Testing
@testable import ReqdCore

private let second = Harness.second
private let ms = Harness.ms

/// A schedule of `calendar` in UTC that GETs a hook, with the options the suites vary.
private func scheduleSpec(
    calendar: String? = "*:*:0/2", every: Int64? = nil, request: Bool = true, overlap: ScheduleOverlap? = nil,
    catchUp: ScheduleCatchUp? = nil, key: String? = "tick", ephemeral: Bool? = nil
) -> ScheduleSpec {
    ScheduleSpec(
        calendar: every == nil ? calendar : nil, everyMs: every, tz: every == nil ? "UTC" : nil,
        request: request ? RequestSpec(method: "GET", url: "https://hooks.example/tick", maxAttempts: 1) : nil,
        overlap: overlap, catchUp: catchUp, key: key, ephemeral: ephemeral, follow: true)
}

extension Harness {
    /// Registers a schedule and returns its id.
    mutating func schedule(_ spec: ScheduleSpec) -> JobID {
        let effects = request(.registerSchedule(spec))
        guard let result = effects.replies.first?.result, case .success(.registered(let reply)) = result else {
            fatalError("register-schedule failed: \(effects)")
        }
        return JobID(reply.job.id)
    }

    /// The schedule's view, as `status` shows it.
    func scheduleInfo(_ id: JobID) -> ScheduleInfo? {
        scheduler.job(id).map { JobInfo($0, at: now) }?.schedule
    }
}

@Suite("Schedules in the scheduler: elapses, runs, overlap, restart")
struct ScheduleTests {
    @Test("each elapse starts one request job, on the grid, and the schedule records its outcome")
    func runsOnTheGrid() {
        var h = Harness()
        // 1_800_000_000 s is an even second: the next elapses are 2 s and 4 s later.
        let id = h.schedule(scheduleSpec())
        #expect(h.armed == h.now.instant.advanced(by: 2 * second))
        var effects = h.fireAtArmedDeadline()
        let elapsed = effects.events(.elapsed)
        #expect(elapsed.count == 1 && elapsed.first?.run == ScheduleRun.started && elapsed.first?.lateByMs == 0)
        #expect(effects.sends.map(\.request.url) == ["https://hooks.example/tick"])
        guard let send = effects.sends.first else { return }
        #expect(elapsed.first?.spawned == send.job.rawValue)
        #expect(h.scheduler.job(send.job)?.delivery?.parent == id)
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, Fixture.answer(204)))
        let info = h.scheduleInfo(id)
        #expect(info?.runs == 1 && info?.lastRun == send.job.rawValue && info?.lastOutcome == .succeeded && info?.running == nil)
        effects = h.fireAtArmedDeadline()
        #expect(effects.sends.count == 1)
        // While the second run goes, the outcome of the first is not shown as the last run's.
        #expect(h.scheduleInfo(id)?.lastOutcome == nil && h.scheduleInfo(id)?.running == effects.sends.first?.job.rawValue)
        #expect(h.scheduleInfo(id)?.lastElapse == WallTime(nanosecondsSinceEpoch: (1_800_000_004) * second))
        #expect(h.scheduleInfo(id)?.next.count == 3)
    }

    @Test("skip: an elapse while the run is on the wire sends nothing and is counted")
    func skip() {
        var h = Harness()
        let id = h.schedule(scheduleSpec())
        let first = h.fireAtArmedDeadline().sends
        let second = h.fireAtArmedDeadline()
        #expect(second.sends.isEmpty)
        #expect(second.events(.elapsed).first?.run == ScheduleRun.skipped)
        #expect(h.scheduleInfo(id)?.skipped == 1 && h.scheduleInfo(id)?.running == first.first?.job.rawValue)
    }

    @Test("queue: one run waits, and starts as soon as the running one ends")
    func queue() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(overlap: .queue))
        guard let first = h.fireAtArmedDeadline().sends.first else { Issue.record("no first run"); return }
        #expect(h.fireAtArmedDeadline().events(.elapsed).first?.run == ScheduleRun.queued)
        #expect(h.fireAtArmedDeadline().events(.elapsed).first?.run == ScheduleRun.skipped, "one run waits at most: the next elapse is skipped, and told so")
        let ended = h.handle(.httpFinished(first.job, attempt: first.attempt, Fixture.answer(200)))
        #expect(ended.sends.count == 1)
        #expect(ended.events(.elapsed).first?.run == ScheduleRun.started)
        #expect(h.scheduleInfo(id)?.runs == 2 && h.scheduleInfo(id)?.skipped == 1)
    }

    @Test("replace: the running request is aborted on the wire and a new run starts")
    func replace() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(overlap: .replace))
        guard let first = h.fireAtArmedDeadline().sends.first else { Issue.record("no first run"); return }
        let effects = h.fireAtArmedDeadline()
        #expect(effects.aborts.map(\.0) == [first.job])
        #expect(effects.sends.count == 1 && effects.sends.first?.job != first.job)
        #expect(h.scheduler.job(first.job)?.state == .cancelled && h.scheduler.job(first.job)?.reason == .superseded)
        #expect(h.scheduleInfo(id)?.runs == 2)
    }

    @Test("down across three elapses: one catch-up run at restart, late by the downtime, then back on the grid")
    func restartCatchUp() {
        var h = Harness()
        let id = h.schedule(scheduleSpec())
        guard let first = h.fireAtArmedDeadline().sends.first else { Issue.record("no first run"); return }
        _ = h.handle(.httpFinished(first.job, attempt: first.attempt, Fixture.answer(200)))
        // Stopped at +2.5 s, started again 6.1 s later (at +8.6 s): 4, 6 and 8 passed.
        h.advance(500 * ms)
        var (restarted, _) = h.restarted(after: 6_100 * ms)
        _ = restarted.request(.watch(JobSelector(job: id.rawValue)))
        let effects = restarted.fireAtArmedDeadline()
        #expect(effects.sends.count == 1)
        let elapsed = effects.events(.elapsed)
        #expect(elapsed.count == 1 && elapsed.first?.missed == 2)
        #expect((elapsed.first?.lateByMs ?? 0) > 4_500)
        let info = restarted.scheduleInfo(id)
        #expect(info?.runs == 2 && info?.missed == 2)
        #expect(info?.next.first == WallTime(nanosecondsSinceEpoch: 1_800_000_010 * second))

        var h2 = Harness()
        let quiet = h2.schedule(scheduleSpec(catchUp: ScheduleCatchUp.none, key: "quiet"))
        h2.advance(500 * ms)
        var (restarted2, _) = h2.restarted(after: 6_100 * ms)
        _ = restarted2.request(.watch(JobSelector(job: quiet.rawValue)))
        let missed = restarted2.fireAtArmedDeadline()
        #expect(missed.sends.isEmpty)
        #expect(missed.events(.elapsed).first?.run == ScheduleRun.missed && restarted2.scheduleInfo(quiet)?.missed == 3)
    }

    @Test("pause stops elapses; resume goes on from the next future one; both are told to watchers")
    func pauseResume() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(request: false))
        var effects = h.request(.pause(JobSelector(key: "tick")))
        #expect(effects.events(.paused).count == 1)
        #expect(h.scheduleInfo(id)?.paused == true && h.armed == nil)
        h.advance(7 * second)
        effects = h.request(.resume(JobSelector(job: id.rawValue)))
        #expect(effects.events(.resumed).count == 1)
        #expect(h.armed == h.now.instant.advanced(by: 1 * second))
        #expect(h.fireAtArmedDeadline().events(.elapsed).first?.run == ScheduleRun.none)
        #expect(h.scheduleInfo(id)?.missed == 0 && h.scheduleInfo(id)?.runs == 1)
        #expect(h.request(.pause(JobSelector(job: "cd_0000000000"))).errorCodes == [.unknownJob])
    }

    @Test("a paused schedule comes back from the store paused, with nothing armed, and resumes on the grid")
    func pausedSurvivesRestart() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(request: false))
        _ = h.request(.pause(JobSelector(key: "tick")))
        var (restarted, _) = h.restarted(after: 7 * second)
        #expect(restarted.scheduleInfo(id)?.paused == true && restarted.armed == nil)
        #expect(restarted.fireDue().events(.elapsed).isEmpty)
        _ = restarted.request(.resume(JobSelector(job: id.rawValue)))
        // 1_800_000_007 s is odd: the next even second is 1 s away.
        #expect(restarted.armed == restarted.now.instant.advanced(by: 1 * second))
        #expect(restarted.scheduleInfo(id)?.missed == 0)
    }

    @Test("a rule with no elapse left ends the schedule, after its last run ends")
    func completes() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(calendar: "@1800000003"))
        guard let run = h.fireAtArmedDeadline().sends.first else { Issue.record("no run"); return }
        #expect(h.scheduler.job(id)?.state == .active)
        let ended = h.handle(.httpFinished(run.job, attempt: run.attempt, Fixture.answer(200)))
        #expect(h.scheduler.job(id)?.state == .completed)
        #expect(ended.events(.completed).map(\.job) == [id.rawValue])
        #expect(ended.events(.completed).map(\.state) == [.completed])
    }

    @Test("a schedule without a request ends completed at its last elapse; one whose last elapse passed while the daemon was down ends at the restart, after its catch-up")
    func completesWithoutRequest() {
        var h = Harness()
        let clock = h.schedule(scheduleSpec(calendar: "@1800000003", request: false, key: "once"))
        let fired = h.fireAtArmedDeadline()
        #expect(fired.events(.elapsed).map(\.run) == [ScheduleRun.none])
        #expect(h.scheduler.job(clock)?.state == .completed && fired.events(.completed).map(\.state) == [.completed])

        var d = Harness()
        let hook = d.schedule(scheduleSpec(calendar: "@1800000003", key: "hook"))
        var (restarted, effects) = d.restarted(after: 60 * second)
        effects += restarted.fireDue()
        guard let run = effects.sends.first else { Issue.record("no catch-up run"); return }
        #expect(restarted.scheduler.job(hook)?.state == .active, "it ends once its run has")
        _ = restarted.handle(.httpFinished(run.job, attempt: run.attempt, Fixture.answer(200)))
        #expect(restarted.scheduler.job(hook)?.state == .completed && restarted.scheduleInfo(hook)?.runs == 1)
    }

    @Test("bad expressions, zones and combinations are refused with a stable code and change nothing")
    func refusals() {
        var h = Harness()
        let cases: [(ScheduleSpec, SchedulerError.Code)] = [
            (ScheduleSpec(calendar: "*-02-30"), .badSchedule),
            (ScheduleSpec(cron: "61 * * * *"), .badSchedule),
            (ScheduleSpec(calendar: "daily", tz: "Mars/Base"), .badSchedule),
            (ScheduleSpec(calendar: "2020-01-01"), .badSchedule),
            (ScheduleSpec(calendar: "daily", cron: "@daily"), .conflictingFields),
            (ScheduleSpec(), .missingField),
            (ScheduleSpec(everyMs: 0), .badDuration),
            (ScheduleSpec(everyMs: 60_000, tz: "UTC"), .conflictingFields),
            (ScheduleSpec(calendar: "daily UTC", tz: "Europe/Berlin"), .conflictingFields),
            (ScheduleSpec(everyMs: 60_000, randomizedDelayMs: 60_000), .badDuration),
            (ScheduleSpec(calendar: "hourly", tz: "UTC", randomizedDelayMs: 3_600_000), .badDuration),
        ]
        for (spec, code) in cases {
            #expect(h.request(.registerSchedule(spec)).errorCodes == [code], "\(spec)")
        }
        #expect(h.scheduler.table.schedules.count == 0)
    }

    @Test("--randomized-delay: each run starts within the delay after its elapse, never before, at a new offset each time")
    func randomizedDelay() {
        var h = Harness()
        var spec = scheduleSpec(calendar: "*:*:00")
        spec.randomizedDelayMs = 20_000
        let id = h.schedule(spec)
        var offsets: Set<Int64> = []
        for minute in 1...8 {
            let effects = h.fireAtArmedDeadline()
            guard let run = effects.sends.first else { Issue.record("elapse \(minute) started no run"); return }
            // The harness starts on a whole minute (1_800_000_000 s).
            let offset = h.now.wall.nanosecondsSinceEpoch - (1_800_000_000 + 60 * Int64(minute)) * second
            #expect(offset >= 0 && offset <= 20 * second, "run \(minute) started \(offset) ns after its elapse")
            #expect(effects.events(.elapsed).first?.lateByMs == 0, "late_by counts from the delayed instant")
            #expect(h.scheduleInfo(id)?.lastElapse == WallTime(nanosecondsSinceEpoch: (1_800_000_000 + 60 * Int64(minute)) * second))
            offsets.insert(offset)
            _ = h.handle(.httpFinished(run.job, attempt: run.attempt, Fixture.answer(200)))
        }
        #expect(offsets.count >= 6, "a fresh delay for each elapse: \(offsets.sorted())")
    }

    @Test("--fixed-delay: every elapse, and the first after a restart, runs at the one offset derived from the id")
    func fixedDelay() {
        var h = Harness()
        var spec = scheduleSpec(calendar: "*:*:00")
        spec.randomizedDelayMs = 20_000
        spec.fixedDelay = true
        _ = h.schedule(spec)
        var offsets: Set<Int64> = []
        for _ in 1...4 {
            let effects = h.fireAtArmedDeadline()
            guard let run = effects.sends.first else { Issue.record("no run"); return }
            offsets.insert(h.now.wall.nanosecondsSinceEpoch % (60 * second))
            _ = h.handle(.httpFinished(run.job, attempt: run.attempt, Fixture.answer(200)))
        }
        #expect(offsets.count == 1 && (offsets.first ?? -1) > 0 && (offsets.first ?? .max) <= 20 * second, "\(offsets)")
        // Restarted a little past the next whole minute, before its delayed elapse.
        var (restarted, _) = h.restarted(after: 60 * second - (offsets.first ?? 0))
        #expect(restarted.handle(.timerFired).sends.isEmpty, "nothing before the delayed instant")
        #expect(restarted.fireAtArmedDeadline().sends.count == 1)
        #expect(restarted.now.wall.nanosecondsSinceEpoch % (60 * second) == offsets.first)
    }

    @Test("an expression that never elapses is refused bad_schedule with a message naming its field")
    func neverElapsesNamesTheField() {
        var h = Harness()
        let cases: [(ScheduleSpec, String)] = [
            (ScheduleSpec(calendar: "*-02-30"), "'calendar', its day field"),
            (ScheduleSpec(calendar: "Mon 2027-03-02", tz: "UTC"), "'calendar', its weekday field"),
            (ScheduleSpec(cron: "0 0 31 2 *", tz: "UTC"), "'cron', its day of month field"),
            (ScheduleSpec(cron: "61 * * * *", tz: "UTC"), "'cron', its minute field"),
            (ScheduleSpec(calendar: "2020-01-01", tz: "UTC"), "'calendar': '2020-01-01 00:00:00' has no elapse after now"),
        ]
        for (spec, named) in cases {
            let failures = h.request(.registerSchedule(spec)).replies.compactMap {
                if case .failure(let error) = $0.result { return error } else { return nil }
            }
            #expect(failures.map(\.code) == [.badSchedule], "\(spec)")
            #expect(failures.first?.message.hasPrefix(named) == true, "\(failures.first?.message ?? "no reply")")
        }
        #expect(h.scheduler.table.schedules.count == 0)
    }

    @Test("key, scope, bind-connection and ephemeral mean what they mean for countdowns; list --kind schedule lists schedules alone")
    func hygiene() {
        var h = Harness()
        let hourly = { (key: String, scope: String?, ephemeral: Bool?, bind: Bool?) in
            ScheduleSpec(calendar: "hourly", tz: "UTC", key: key, scope: scope, ephemeral: ephemeral, bindConnection: bind)
        }
        let durable = h.schedule(hourly("a", "page", nil, nil))
        let ephemeral = h.schedule(hourly("b", "page", true, nil))
        let bound = h.schedule(hourly("c", nil, nil, true))
        let countdown = h.countdown(key: "d", seconds: 600).id
        let inserted = Set(h.persisted.compactMap { if case .insert(let record) = $0 { record.id } else { nil } })
        #expect(inserted.contains(durable.rawValue), "schedules are durable by default")
        #expect(!inserted.contains(ephemeral.rawValue), "an ephemeral schedule is never written")
        #expect(!inserted.contains(bound.rawValue), "nor is one bound to its connection, which a restart would close")
        #expect(h.request(.registerSchedule(ScheduleSpec(calendar: "hourly", tz: "UTC", ephemeral: false, bindConnection: true))).errorCodes == [.conflictingFields])

        guard case .success(.jobs(let listed))? = h.request(.list(ListRequest(kind: .schedule))).replies.first?.result else {
            Issue.record("no list reply")
            return
        }
        #expect(listed.jobs.map(\.id) == [durable, ephemeral, bound].map(\.rawValue))
        #expect(!listed.jobs.map(\.id).contains(countdown.rawValue))

        // The same key again replaces the schedule that held it.
        let again = h.schedule(hourly("a", nil, nil, nil))
        #expect(h.scheduler.job(durable)?.state == .cancelled && h.scheduler.job(durable)?.reason == .superseded)
        #expect(h.scheduler.job(durable)?.replacedBy == again)
        // A scope's cancel ends the schedules in it; the connection's close ends the bound one.
        #expect(h.request(.cancel(JobSelector(scope: "page"))).replies.count == 1)
        #expect(h.scheduler.job(ephemeral)?.state == .cancelled)
        #expect(h.scheduler.job(bound)?.state == .active)
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        #expect(h.scheduler.job(bound)?.state == .cancelled && h.scheduler.job(bound)?.reason == .connectionClosed)
        #expect(h.scheduler.job(again)?.state == .active, "an unbound schedule outlives its connection")
    }

    @Test("a clock stepped back does not run an elapse twice")
    func clockStepBack() {
        var h = Harness()
        let id = h.schedule(scheduleSpec(calendar: "*:*:00", request: false))
        #expect(h.fireAtArmedDeadline().events(.elapsed).count == 1)
        // The wall clock goes back 30 s; the boot-time clock does not.
        h.now.wall.nanosecondsSinceEpoch -= 30 * second
        _ = h.handle(.clockStepped)
        #expect(h.scheduleInfo(id)?.next.first == WallTime(nanosecondsSinceEpoch: (1_800_000_000 + 120) * second))
        #expect(h.armed == h.now.instant.advanced(by: 90 * second))
    }
}

@Suite("Cancelling a schedule and its run")
struct ScheduleCancelTests {
    @Test("cancel leaves a run in flight to finish; cancel with abort cancels it and aborts its request")
    func cancelAndAbort() {
        for abort in [false, true] {
            var h = Harness()
            let id = h.schedule(scheduleSpec())
            guard let run = h.fireAtArmedDeadline().sends.first else { Issue.record("no run"); return }
            let effects = h.request(.cancel(JobSelector(job: id.rawValue, abort: abort ? true : nil)))
            #expect(h.scheduler.job(id)?.state == .cancelled)
            #expect(effects.aborts.map(\.0) == (abort ? [run.job] : []))
            #expect(h.scheduler.job(run.job)?.state == (abort ? .cancelled : .active))
        }
    }

    @Test("replace on the last elapse of a finite rule: the last run starts, and the schedule ends when it does")
    func replaceOnTheLastElapse() {
        var h = Harness()
        // 1_800_000_000 s is 2027-01-15T08:00:00Z: elapses 2 s and 4 s later, then none.
        let id = h.schedule(scheduleSpec(calendar: "2027-01-15 08:00:02,04", overlap: .replace))
        guard let first = h.fireAtArmedDeadline().sends.first else { Issue.record("no first run"); return }
        let last = h.fireAtArmedDeadline()
        #expect(last.aborts.map(\.0) == [first.job])
        guard let run = last.sends.first else { Issue.record("the last elapse started no run"); return }
        #expect(h.scheduler.job(id)?.state == .active && h.scheduleInfo(id)?.running == run.job.rawValue)
        #expect(last.events(.completed).isEmpty)
        let ended = h.handle(.httpFinished(run.job, attempt: run.attempt, Fixture.answer(200)))
        #expect(h.scheduler.job(id)?.state == .completed && ended.events(.completed).count == 1)
        #expect(h.scheduleInfo(id)?.next == [])
    }

    @Test("a restart that finds the run's job gone forgets it: the next elapse runs, not skips")
    func restartWithoutTheRun() {
        var h = Harness()
        let id = h.schedule(scheduleSpec())
        guard let run = h.fireAtArmedDeadline().sends.first else { Issue.record("no run"); return }
        var (restarted, _) = h.restarted(after: 500 * ms) { $0.id != run.job.rawValue }
        #expect(restarted.scheduleInfo(id)?.running == nil && restarted.scheduleInfo(id)?.lastOutcome == .cancelled)
        #expect(restarted.fireAtArmedDeadline().sends.count == 1)
        #expect(restarted.scheduleInfo(id)?.skipped == 0)
    }

    @Test("a change of the local zone moves the pending elapse of a schedule given no zone, not one given a zone")
    func localZoneChange() {
        final class Local: Sendable {
            let zone = Mutex(ZoneRules.utc)
        }
        let local = Local()
        let database = ZoneDatabase()
        var h = Harness()
        h.scheduler.zones = ZoneProvider(named: { try? database.zone(named: $0) }, local: { local.zone.withLock { $0 } })
        // 09:00 daily: in UTC at first, then in Berlin; the other stays in UTC by name.
        let following = h.schedule(ScheduleSpec(calendar: "09:00", key: "local"))
        let fixed = h.schedule(ScheduleSpec(calendar: "09:00", tz: "UTC", key: "utc"))
        // 1_800_000_000 s is 2027-01-15T08:00:00Z.
        #expect(h.scheduleInfo(following)?.next.first == WallTime(nanosecondsSinceEpoch: (1_800_000_000 + 3_600) * second))
        local.zone.withLock { $0 = (try? database.zone(named: "Europe/Berlin")) ?? .utc }
        _ = h.handle(.localZoneChanged)
        #expect(h.scheduleInfo(following)?.zone == "Europe/Berlin")
        #expect(h.scheduleInfo(following)?.next.first == WallTime(nanosecondsSinceEpoch: (1_800_000_000 + 86_400) * second))
        #expect(h.scheduleInfo(fixed)?.next.first == WallTime(nanosecondsSinceEpoch: (1_800_000_000 + 3_600) * second))
        #expect(h.armed == h.now.instant.advanced(by: 3_600 * second))
    }

    @Test("a cron schedule in a zone elapses on its fields by that zone's wall clock, runs, and comes back from the store the same")
    func cronInAZone() {
        let database = ZoneDatabase()
        var h = Harness()
        h.scheduler.zones = ZoneProvider(named: { try? database.zone(named: $0) }, local: { .utc })
        // 09:30 on weekdays in Berlin, UTC+1 in January; 1_800_000_000 s is Friday 2027-01-15T08:00:00Z.
        let id = h.schedule(
            ScheduleSpec(
                cron: "30 9 * * 1-5", tz: "Europe/Berlin", request: RequestSpec(method: "POST", url: "https://hooks.example/standup", maxAttempts: 1),
                key: "standup", follow: true))
        let friday: Int64 = 1_800_000_000 + 1_800
        let days = { (offsets: [Int64]) in offsets.map { WallTime(nanosecondsSinceEpoch: (friday + $0 * 86_400) * second) } }
        #expect(h.scheduleInfo(id)?.zone == "Europe/Berlin")
        #expect(h.scheduleInfo(id)?.next == days([0, 3, 4]), "Friday, then Monday and Tuesday: no weekend")
        #expect(h.armed == h.now.instant.advanced(by: 1_800 * second))
        let effects = h.fireAtArmedDeadline()
        #expect(effects.events(.elapsed).first?.lateByMs == 0)
        guard let send = effects.sends.first else {
            Issue.record("no run")
            return
        }
        #expect(send.request.url == "https://hooks.example/standup" && send.request.method == "POST")
        _ = h.handle(.httpFinished(send.job, attempt: send.attempt, Fixture.answer(204)))
        let expression = h.scheduleInfo(id)?.expression
        let (restarted, _) = h.restarted(after: 1 * second)
        let info = restarted.scheduleInfo(id)
        #expect(expression != nil && info?.expression == expression && info?.zone == "Europe/Berlin")
        #expect(info?.next == days([3, 4, 5]) && info?.runs == 1 && info?.lastOutcome == .succeeded)
        #expect(restarted.armed == restarted.now.instant.advanced(by: (3 * 86_400 - 1) * second))
    }

    @Test("replace while the run's row is still being written: the replaced run ends superseded once its commit is done")
    func replaceAStagedRun() {
        var h = Harness()
        guard let id = Self.heldCommits(&h, overlap: .replace) else { return }
        _ = h.fireAtArmedDeadline()
        let first = h.scheduleInfo(id)?.running
        _ = h.fireAtArmedDeadline()
        let second = h.scheduleInfo(id)?.running
        #expect(first != nil && second != nil && first != second)
        let sends = Self.completeHeld(&h).sends
        #expect(sends.map(\.job.rawValue) == [second ?? ""], "the replaced run sends nothing: \(sends)")
        #expect(h.scheduler.job(JobID(first ?? ""))?.state == .cancelled)
        #expect(h.scheduler.job(JobID(first ?? ""))?.reason == .superseded)
        #expect(h.scheduler.job(JobID(first ?? ""))?.replacedBy?.rawValue == second)
        #expect(h.scheduler.job(JobID(second ?? ""))?.state == .active)
        #expect(h.scheduleInfo(id)?.running == second)
    }

    @Test("cancel with abort while the run's row is still being written: the run ends cancelled once its commit is done, and sends nothing")
    func cancelAStagedRun() {
        var h = Harness()
        guard let id = Self.heldCommits(&h, overlap: .skip) else { return }
        _ = h.fireAtArmedDeadline()
        guard let run = h.scheduleInfo(id)?.running else { Issue.record("no run"); return }
        #expect(h.scheduler.commits.isStaged(JobID(run)))
        let cancelled = h.request(.cancel(JobSelector(job: id.rawValue, abort: true)))
        #expect(
            cancelled.contains { if case .persist(.progress(run, let progress)) = $0 { progress.state == .cancelled } else { false } },
            "the cancel's own commit records the run's end")
        let sends = Self.completeHeld(&h).sends
        #expect(sends.isEmpty, "nothing goes on the wire")
        #expect(h.scheduler.job(JobID(run))?.state == .cancelled)
        #expect(h.scheduler.job(JobID(run))?.reason == .requested)
        #expect(h.scheduler.job(id)?.state == .cancelled)
        #expect(h.storedRecords.first { $0.id == run }?.state == .cancelled, "and so it is stored")
    }

    @Test("a scope cancel ends the schedule before its run, starts no queued run, and lets the run in flight go on (no abort); the ended schedule records that run's end")
    func scopeCancelWithRunInFlight() throws {
        var h = Harness()
        var spec = scheduleSpec(overlap: .queue)
        spec.scope = "s"
        let id = h.schedule(spec)
        let started = h.fireAtArmedDeadline()
        guard let run = h.scheduleInfo(id)?.running else { Issue.record("no run: \(started)"); return }
        _ = h.fireAtArmedDeadline()
        let cancelled = h.request(.cancel(JobSelector(scope: "s")))
        #expect(cancelled.sends.isEmpty, "no queued run starts")
        #expect(cancelled.events(.completed).isEmpty)
        #expect(h.scheduler.job(id)?.state == .cancelled)
        #expect(h.scheduler.job(JobID(run))?.state == .active, "the run goes on without abort")
        guard case .success(.cancelled(let result))? = cancelled.replies.first?.result else {
            Issue.record("no reply: \(cancelled)")
            return
        }
        #expect(result.cancelled == [id.rawValue])
        let ended = h.handle(.httpFinished(JobID(run), attempt: 1, .response(HTTPAnswer(status: 200))))
        #expect(ended.sends.isEmpty)
        #expect(h.scheduleInfo(id)?.running == nil, "the run's end is recorded")
        #expect(h.scheduleInfo(id)?.lastOutcome == .succeeded)
        let restarted = h.restarted().harness
        #expect(restarted.scheduleInfo(id)?.running == nil, "and stored")
        #expect(restarted.scheduleInfo(id)?.lastOutcome == .succeeded)
    }

    @Test("a run retried by hand is the schedule's run again: under skip, the next elapse is skipped, and the run's end is recorded")
    func retriedRun() throws {
        var h = Harness()
        let id = h.schedule(scheduleSpec(overlap: .skip))
        guard let first = h.fireAtArmedDeadline().sends.first else { Issue.record("no run"); return }
        _ = h.handle(.httpFinished(first.job, attempt: first.attempt, Fixture.answer(404)))
        #expect(h.scheduler.job(first.job)?.state == .failed)
        #expect(h.scheduleInfo(id)?.running == nil)
        let retried = h.request(.retry(RetryRequest(job: first.job.rawValue)))
        #expect(retried.errorCodes.isEmpty, "\(retried)")
        #expect(h.scheduleInfo(id)?.running == first.job.rawValue)
        let next = h.fireAtArmedDeadline()
        #expect(next.events(.elapsed).first?.run == ScheduleRun.skipped, "never two runs at once")
        #expect(next.sends.allSatisfy { $0.job == first.job })
        guard let resent = (retried.sends + next.sends).last else { Issue.record("the retry sent nothing"); return }
        _ = h.handle(.httpFinished(first.job, attempt: resent.attempt, Fixture.answer(200)))
        #expect(h.scheduleInfo(id)?.running == nil)
        #expect(h.scheduleInfo(id)?.lastOutcome == .succeeded)
    }

    /// Holds commits from now on, registers a schedule and lets its registration commit: its id.
    private static func heldCommits(_ h: inout Harness, overlap: ScheduleOverlap) -> JobID? {
        h.autoCommit = false
        _ = h.request(.registerSchedule(scheduleSpec(overlap: overlap)))
        _ = completeHeld(&h)
        guard let id = h.scheduler.table.schedules.keys.first else {
            Issue.record("no schedule")
            return nil
        }
        return id
    }

    /// Lets every held commit complete; the effects.
    private static func completeHeld(_ h: inout Harness) -> [SchedulerEffect] {
        let barriers = h.pendingBarriers
        h.pendingBarriers = []
        return barriers.flatMap { h.handle(.commitCompleted($0, failure: nil)) }
    }
}
