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
    /// pending elapse kept, so one that passed while the daemon was down fires as overdue. A zone
    /// the system no longer has (a tzdata upgrade that dropped a legacy name) becomes UTC, under
    /// its name, rather than losing the schedule.
    func resumed(at now: ClockReading, zones: ZoneProvider) -> Schedule? {
        let rule: ScheduleRule
        if let interval = settings.everyNanos, let anchor = settings.anchor, interval > 0 {
            rule = .every(interval: interval, anchor: anchor)
        } else {
            let zone = settings.tz.map { name in zones.named(name) ?? ZoneRules.utc.renamed(name) } ?? zones.local()
            let pattern: (any CivilPattern)?
            if let calendar = settings.calendar {
                pattern = try? CalendarSpec(parsing: calendar) { word in zones.named(word) != nil || word == settings.tz || (word.first?.isLetter == true && word.contains("/")) }
            } else {
                pattern = settings.cron.flatMap { try? CronSpec(parsing: $0) }
            }
            guard let pattern else { return nil }
            let zoneInExpression = (pattern as? CalendarSpec)?.zone.map { name in zones.named(name) ?? ZoneRules.utc.renamed(name) }
            rule = .calendar(CalendarRule(Recurrence(pattern: pattern, zone: zoneInExpression ?? zone)))
        }
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
