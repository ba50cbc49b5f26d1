import ReqdCalendar

/// The calendar rules parsed while rows are read back, by their stored text and zone, so that the
/// schedules of one rule parse it once.
///
/// Parsing a calendar expression took 15% of a restart of 1,000,000 schedules on one rule
/// (BENCHMARKS.md). The schedules of one chunk that share a parsed rule also share its object,
/// which the scheduler's `ScheduleRuleCache` then maps to its kept rule at once.
struct RestoredRules {
    private struct Key: Hashable {
        let text: String
        let cron: Bool
        /// The zone's name; nil for the daemon's local zone.
        let tz: String?
    }

    private var rules: [Key: ScheduleRule] = [:]

    /// The rule `settings` name, parsed once for each text and zone; nil when it does not parse.
    mutating func rule(of settings: ScheduleSettings, zones: ZoneProvider) -> ScheduleRule? {
        guard settings.everyNanos == nil, let text = settings.calendar ?? settings.cron else { return settings.rule(zones: zones) }
        let key = Key(text: text, cron: settings.calendar == nil, tz: settings.tz)
        if let rule = rules[key] { return rule }
        let rule = settings.rule(zones: zones)
        if let rule { rules[key] = rule }
        return rule
    }
}
