import ReqdCalendar

extension ScheduleSettings {
    /// The rule as stored, parsed again in its zone (or the local zone now); nil when it no
    /// longer parses. A zone the system no longer has (a tzdata upgrade that dropped a legacy
    /// name) becomes UTC, under its name, rather than losing the schedule.
    func rule(zones: ZoneProvider) -> ScheduleRule? {
        if let interval = everyNanos, let anchor, interval > 0 { return .every(interval: interval, anchor: anchor) }
        let zone = tz.map { name in zones.named(name) ?? ZoneRules.utc.renamed(name) } ?? zones.local()
        let pattern: (any CivilPattern)?
        if let calendar {
            pattern = try? CalendarSpec(parsing: calendar) { word in zones.named(word) != nil || word == tz || (word.first?.isLetter == true && word.contains("/")) }
        } else {
            pattern = cron.flatMap { try? CronSpec(parsing: $0) }
        }
        guard let pattern else { return nil }
        let zoneInExpression = (pattern as? CalendarSpec)?.zone.map { name in zones.named(name) ?? ZoneRules.utc.renamed(name) }
        return .calendar(CalendarRule(Recurrence(pattern: pattern, zone: zoneInExpression ?? zone)))
    }
}
