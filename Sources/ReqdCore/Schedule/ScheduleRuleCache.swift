import ReqdCalendar

/// One copy of each calendar rule in use, which every schedule naming it shares.
///
/// A calendar rule is a few hundred bytes: its box, the parsed expression's own box and its
/// component arrays. A million schedules on `*:0/15` would each hold a copy. Rules never change
/// once made, so those schedules can hold one copy between them: the indirect case's box is
/// shared when the rule value is copied.
///
/// Two rules are the same when their expressions have one normal form, of one syntax, in one zone
/// object. The normal form is what the store keeps and parses again, so it decides every elapse.
/// The cache keeps at most `capacity` rules and starts over when full. Schedules keep the copy
/// they hold, and later registrations share new copies. So a daemon with more distinct expressions
/// than that shares less, and never holds more than `capacity` rules that no schedule uses.
struct ScheduleRuleCache: Sendable {
    /// Distinct rules kept at most.
    static let capacity = 1_024

    private struct Key: Hashable {
        let normalized: String
        let cron: Bool
        /// The zone object, which the kept rule holds, so the identifier is not reused meanwhile.
        let zone: ObjectIdentifier
    }

    private var rules: [Key: ScheduleRule] = [:]

    /// Rules kept now.
    var count: Int { rules.count }

    /// The kept copy of `rule` when there is one; otherwise `rule`, kept from now on. An
    /// interval is returned as it is: it is stored inline.
    mutating func shared(_ rule: ScheduleRule) -> ScheduleRule {
        guard case .calendar(let recurrence) = rule else { return rule }
        let key = Key(
            normalized: recurrence.pattern.normalized, cron: recurrence.pattern is CronSpec, zone: ObjectIdentifier(recurrence.zone))
        if let kept = rules[key] { return kept }
        if rules.count >= Self.capacity { rules = [:] }
        rules[key] = rule
        return rule
    }
}
