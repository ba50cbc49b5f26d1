import ReqdCalendar
import ReqdProtocol

extension ScheduleSpec {
    /// How many of a rule's next gaps a randomized delay is checked against: enough for the
    /// uneven rules people write, few enough that registering stays cheap.
    static let delayCheckedGaps = 8

    /// The schedule this registration asks for, its rule resolved in its zone, or why it cannot be.
    /// Its first elapse is planned once it has an id (`Schedule.plan`).
    func validated(at now: ClockReading, limits: SchedulerConfiguration, zones: ZoneProvider) throws(SchedulerError) -> Schedule {
        try limits.validateRegistration(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection)
        let given = [calendar != nil, cron != nil, everyMs != nil].filter { $0 }.count
        guard given == 1 else {
            throw SchedulerError(given == 0 ? .missingField : .conflictingFields, "give exactly one of 'calendar', 'cron' or 'every_ms'")
        }
        let rule: ScheduleRule
        var followsLocalZone = false
        if let everyMs {
            if tz != nil { throw SchedulerError(.conflictingFields, "'tz' applies to 'calendar' and 'cron', not to 'every_ms'") }
            let interval = try limits.milliseconds("every_ms", everyMs, atLeast: limits.minTickNanos)
            rule = .every(interval: interval, anchor: now.wall)
        } else {
            let pattern: any CivilPattern
            var zoneName = tz
            do {
                if let calendar {
                    let spec = try CalendarSpec(parsing: calendar) { zones.named($0) != nil }
                    if let inExpression = spec.zone {
                        if let tz, tz != inExpression {
                            throw SchedulerError(.conflictingFields, "the calendar expression names the zone \(inExpression), and 'tz' names \(tz)")
                        }
                        zoneName = inExpression
                    }
                    pattern = spec
                } else {
                    pattern = try CronSpec(parsing: cron ?? "")
                }
            } catch let error as CalendarError {
                let named = error.field.map { ", its \($0) field" } ?? ""
                throw SchedulerError(.badSchedule, "'\(calendar != nil ? "calendar" : "cron")'\(named): \(error.message)")
            } catch let error as SchedulerError {
                throw error
            } catch {
                throw SchedulerError(.badSchedule, "bad schedule")
            }
            let zone: ZoneRules
            if let zoneName {
                guard ZoneDatabase.isValidName(zoneName), let found = zones.named(zoneName) else {
                    throw SchedulerError(.badSchedule, "'tz': no time zone named '\(zoneName.prefix(64))'")
                }
                zone = found
            } else {
                zone = zones.local()
                followsLocalZone = true
            }
            rule = .calendar(CalendarRule(Recurrence(pattern: pattern, zone: zone)))
        }
        guard rule.next(after: now.wall) != nil else {
            let field = calendar != nil ? "calendar" : cron != nil ? "cron" : "every_ms"
            throw SchedulerError(.badSchedule, "'\(field)': '\(rule.normalized)' has no elapse after now")
        }
        var delay: Int64 = 0
        if let randomizedDelayMs, randomizedDelayMs != 0 {
            delay = try limits.milliseconds("randomized_delay_ms", randomizedDelayMs, atLeast: 1_000_000)
            // Each delayed elapse must come before the next one is due, over the next gaps (a
            // rule's gaps differ: `09,10:00` has 1 h and 23 h). Past them, an elapse whose delayed
            // time a shorter gap overtook is not lost: it fires at once, late (`Schedule.timerFired`).
            var previous = rule.next(after: now.wall)
            for _ in 0..<Self.delayCheckedGaps {
                guard let earlier = previous, let next = rule.next(after: earlier) else { break }
                if delay >= next.nanosecondsSinceEpoch - earlier.nanosecondsSinceEpoch {
                    throw SchedulerError(
                        .badDuration, "'randomized_delay_ms' must be shorter than the time between two elapses of '\(rule.normalized)'")
                }
                previous = next
            }
        }
        var schedule = Schedule(
            rule: rule, overlap: overlap ?? .skip, catchUp: catchUp ?? .one, randomizedDelay: delay, fixedDelay: fixedDelay ?? false,
            request: try request.map { spec throws(SchedulerError) in Box(try spec.delivery(field: "request.", firstAttempt: now.instant, limits: limits)) })
        schedule.followsLocalZone = followsLocalZone
        return schedule
    }
}
