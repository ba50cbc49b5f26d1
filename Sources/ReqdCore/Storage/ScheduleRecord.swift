import ReqdCalendar
import ReqdProtocol

/// A schedule as stored: its rule and options, written once, and where it is.
public typealias ScheduleRecord = WorkRecord<ScheduleSettings, ScheduleCounters>

extension WorkRecord where Settings == ScheduleSettings, Counters == ScheduleCounters {
    /// The stored form of a schedule.
    init(_ schedule: Schedule) {
        var settings = ScheduleSettings(
            calendar: nil, cron: nil, everyNanos: nil, anchor: nil, tz: nil, overlap: schedule.overlap, catchUp: schedule.catchUp,
            randomizedDelayNanos: schedule.randomizedDelay, fixedDelay: schedule.fixedDelay,
            request: schedule.request.map { DeliverySettings($0.value) })
        switch schedule.rule {
        case .calendar(let rule):
            let recurrence = rule.recurrence
            if recurrence.pattern is CronSpec { settings.cron = recurrence.pattern.normalized } else { settings.calendar = recurrence.pattern.normalized }
            settings.tz = schedule.followsLocalZone ? nil : recurrence.zone.name
        case .every(let interval, let anchor):
            settings.everyNanos = interval
            settings.anchor = anchor
        }
        self.init(settings: settings, counters: ScheduleCounters(schedule))
    }

    /// The schedule as it resumes: its rule parsed again in its zone (or the local zone now), its
    /// pending elapse kept, so one that passed while the daemon was down fires as overdue.
    /// `rules` holds the rules already parsed from the rows read with this one.
    func resumed(at now: ClockReading, zones: ZoneProvider, rules: inout RestoredRules) -> Schedule? {
        guard let rule = rules.rule(of: settings, zones: zones) else { return nil }
        var schedule = Schedule(
            rule: rule, overlap: settings.overlap, catchUp: settings.catchUp, randomizedDelay: settings.randomizedDelayNanos,
            fixedDelay: settings.fixedDelay, request: settings.request.map { Box($0.delivery(firstAttempt: now.instant)) })
        schedule.followsLocalZone = settings.tz == nil && settings.everyNanos == nil
        schedule.due = counters.due
        schedule.delay = counters.delayNanos
        var history = ScheduleHistory()
        history.lastElapse = counters.lastElapse
        history.lastLateBy = counters.lastLateByNanos
        history.runs = counters.runs
        history.skipped = counters.skipped
        history.missed = counters.missed
        history.running = counters.running.map(JobID.init)
        history.lastRun = counters.lastRun.map(JobID.init)
        history.lastOutcome = counters.lastOutcome
        history.queued = counters.queued
        if history != ScheduleHistory() { schedule.history = Box(history) }
        schedule.paused = counters.paused
        return schedule
    }
}
