import ReqdCalendar

/// One `CalendarRule` for each calendar rule in use, which every schedule naming it shares.
///
/// A million schedules on `*:0/15` would otherwise hold a million copies of one rule, a few
/// hundred bytes each. Two rules are the same when their expressions have one normal form, in one
/// zone object: the store keeps the normal form alone and parses it again at restore, so a
/// schedule already behaves as its normal form says. A schedule that follows the local zone and
/// one that names that zone hold two rules: the daemon reads its local zone as an object of its own.
///
/// The cache lets go of the rules no schedule holds any more when it has grown to twice what the
/// previous sweep left, so its size follows the rules in use, at O(1) amortized per new rule.
struct ScheduleRuleCache: Sendable {
    /// The cache sweeps no sooner than at this many rules.
    static let firstSweep = 64

    private struct Key: Hashable {
        let normalized: String
        let cron: Bool
        /// The zone object, which the kept rule holds, so that no other zone takes its address meanwhile.
        let zone: ObjectIdentifier
    }

    private var rules: [Key: CalendarRule] = [:]
    private var sweepAt = Self.firstSweep
    /// The last rule asked for and the kept one it gave. A restore's schedules of one rule in one
    /// chunk hold one object (`RestoredRules`): when they come one after another, the key is not
    /// made again for each.
    private var last: (asked: CalendarRule, kept: CalendarRule)?

    /// Rules kept now.
    var count: Int { rules.count }

    /// The kept rule equal to `rule` when there is one; otherwise `rule`, kept from now on. An
    /// interval is returned as it is: it is stored inline.
    mutating func shared(_ rule: ScheduleRule) -> ScheduleRule {
        guard case .calendar(let calendar) = rule else { return rule }
        if let last, last.asked === calendar { return .calendar(last.kept) }
        let pattern = calendar.recurrence.pattern
        let key = Key(normalized: pattern.normalized, cron: pattern is CronSpec, zone: ObjectIdentifier(calendar.recurrence.zone))
        if let kept = rules[key] {
            last = (calendar, kept)
            return .calendar(kept)
        }
        if rules.count >= sweepAt { sweep() }
        rules[key] = calendar
        last = (calendar, calendar)
        return rule
    }

    /// Lets go of the rules only the cache holds. Each is taken out of the table to be checked,
    /// so the check counts only the schedules' references.
    private mutating func sweep() {
        last = nil
        for key in Array(rules.keys) {
            guard var rule = rules.removeValue(forKey: key) else { continue }
            if !isKnownUniquelyReferenced(&rule) { rules[key] = rule }
        }
        sweepAt = max(Self.firstSweep, 2 * rules.count)
    }
}
