import ReqdCalendar
import ReqdProtocol
import Synchronization
import Testing
@testable import ReqdCore

@Suite("Schedules share one copy of each calendar rule")
struct ScheduleRuleCacheTests {
    /// A calendar rule in UTC, a distinct one for each `second` in 0..<3600.
    private func rule(second: Int) throws -> ScheduleRule {
        .calendar(CalendarRule(Recurrence(pattern: try CalendarSpec(parsing: "*:\(second / 60):\(second % 60)") { _ in false }, zone: .utc)))
    }

    /// The rule object a schedule holds.
    private func held(_ h: Harness, _ id: JobID) -> CalendarRule? {
        guard case .calendar(let rule)? = h.scheduler.table.schedules[id]?.machine.rule else { return nil }
        return rule
    }

    @Test("schedules on one normal form in one zone hold one rule object, registered or restored; another expression or zone has its own")
    func sharedByNormalFormAndZone() throws {
        let berlin = try ZoneDatabase().zone(named: "Europe/Berlin")
        var h = Harness()
        // The daemon's provider hands out one object per zone, as this one does.
        h.scheduler.zones = ZoneProvider(named: { ["UTC": ZoneRules.utc, "Europe/Berlin": berlin][$0] }, local: { .utc })
        // `*:00/15:00` is the normal form of `*:0/15`.
        let same = (0..<5).map { h.schedule(ScheduleSpec(calendar: "*:0/15", tz: "UTC", key: "same\($0)")) }
            + [h.schedule(ScheduleSpec(calendar: "*:00/15:00", tz: "UTC", key: "written out"))]
        let others = [
            h.schedule(ScheduleSpec(calendar: "*:0/15", tz: "Europe/Berlin", key: "berlin")),
            h.schedule(ScheduleSpec(cron: "*/15 * * * *", tz: "UTC", key: "cron")),
            h.schedule(ScheduleSpec(calendar: "*:0/30", tz: "UTC", key: "other")),
        ]
        _ = h.schedule(ScheduleSpec(everyMs: 60_000, key: "interval"))
        #expect(h.scheduler.scheduleRules.count == 4, "an interval is not kept")
        let shared = try #require(held(h, same[0]))
        for id in same { #expect(held(h, id) === shared) }
        for id in others { #expect(held(h, id) != nil && held(h, id) !== shared) }

        let (restarted, _) = h.restarted()
        #expect(restarted.scheduler.scheduleRules.count == 4)
        let restored = try #require(held(restarted, same[0]))
        #expect(restored !== shared, "made again from the stored rows")
        for id in same { #expect(held(restarted, id) === restored) }
        for id in others { #expect(held(restarted, id) != nil && held(restarted, id) !== restored) }
        // 1_800_000_000 s is 08:00:00 UTC.
        let quarters = (1...3).map { WallTime(nanosecondsSinceEpoch: (1_800_000_000 + $0 * 900) * Harness.second) }
        #expect(restarted.scheduleInfo(same[0])?.next == quarters)
    }

    @Test("rows read back parse each rule once for its text, kind and zone, and an interval needs no parse")
    func restoredRulesParseOnce() throws {
        let zones = ZoneProvider(named: { $0 == "UTC" ? ZoneRules.utc : nil }, local: { .utc })
        func settings(calendar: String? = nil, cron: String? = nil, every: Int64? = nil, tz: String? = "UTC") -> ScheduleSettings {
            ScheduleSettings(
                calendar: calendar, cron: cron, everyNanos: every, anchor: every.map { _ in WallTime(nanosecondsSinceEpoch: 0) }, tz: tz,
                overlap: .skip, catchUp: .one, randomizedDelayNanos: 0, fixedDelay: false, request: nil)
        }
        func calendarRule(_ rule: ScheduleRule?) -> CalendarRule? {
            guard case .calendar(let calendar)? = rule else { return nil }
            return calendar
        }
        var rules = RestoredRules()
        let first = try #require(calendarRule(rules.rule(of: settings(calendar: "*:0/15"), zones: zones)))
        #expect(calendarRule(rules.rule(of: settings(calendar: "*:0/15"), zones: zones)) === first)
        let local = try #require(calendarRule(rules.rule(of: settings(calendar: "*:0/15", tz: nil), zones: zones)))
        #expect(local !== first, "the local zone is a rule of its own")
        let cron = try #require(calendarRule(rules.rule(of: settings(cron: "*/15 * * * *"), zones: zones)))
        #expect(cron !== first && cron.recurrence.pattern is CronSpec)
        guard case .every(let interval, _)? = rules.rule(of: settings(every: 60 * Harness.second), zones: zones) else {
            Issue.record("an interval reads back as an interval")
            return
        }
        #expect(interval == 60 * Harness.second)
        #expect(rules.rule(of: settings(calendar: "not a calendar"), zones: zones) == nil)
    }

    @Test("after a change of the local zone, the schedules that follow it share the rule in the new zone")
    func sharedAfterLocalZoneChange() throws {
        final class Local: Sendable {
            let zone = Mutex(ZoneRules.utc)
        }
        let local = Local()
        let berlin = try ZoneDatabase().zone(named: "Europe/Berlin")
        var h = Harness()
        h.scheduler.zones = ZoneProvider(named: { ["UTC": ZoneRules.utc, "Europe/Berlin": berlin][$0] }, local: { local.zone.withLock { $0 } })
        let following = [h.schedule(ScheduleSpec(calendar: "09:00", key: "a")), h.schedule(ScheduleSpec(calendar: "09:00", key: "b"))]
        let before = try #require(held(h, following[0]))
        #expect(held(h, following[1]) === before)
        local.zone.withLock { $0 = berlin }
        _ = h.handle(.localZoneChanged)
        let after = try #require(held(h, following[0]))
        #expect(after !== before && after.recurrence.zone === berlin)
        #expect(held(h, following[1]) === after)
    }

    @Test("a sweep lets go of the rules no schedule holds and keeps handing out the ones held")
    func sweepsUnheldRules() throws {
        var cache = ScheduleRuleCache()
        var kept: [ScheduleRule] = []
        for second in 0..<ScheduleRuleCache.firstSweep {
            let shared = cache.shared(try rule(second: second))
            if second.isMultiple(of: 2) { kept.append(shared) }
        }
        #expect(cache.count == ScheduleRuleCache.firstSweep, "no sweep before the threshold")
        _ = cache.shared(try rule(second: ScheduleRuleCache.firstSweep))
        #expect(cache.count == ScheduleRuleCache.firstSweep / 2 + 1)
        guard case .calendar(let first) = kept[0], case .calendar(let again) = cache.shared(try rule(second: 0)) else {
            Issue.record("not calendar rules")
            return
        }
        #expect(first === again)
        #expect(cache.count == ScheduleRuleCache.firstSweep / 2 + 1)
    }
}
