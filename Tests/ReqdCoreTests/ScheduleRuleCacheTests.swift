import ReqdCalendar
import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Schedules share one copy of each calendar rule")
struct ScheduleRuleCacheTests {
    /// A calendar rule in UTC, one per second of the hour for `second` in 0..<3600.
    private func rule(second: Int) throws -> ScheduleRule {
        .calendar(Recurrence(pattern: try CalendarSpec(parsing: "*:\(second / 60):\(second % 60)") { _ in false }, zone: .utc))
    }

    @Test("schedules on one expression in one zone share a rule, registered or restored; another expression, syntax or zone has its own")
    func sharedByExpressionAndZone() throws {
        let berlin = try ZoneDatabase().zone(named: "Europe/Berlin")
        var h = Harness()
        // The daemon's provider hands out one object per zone, as this one does.
        h.scheduler.zones = ZoneProvider(named: { ["UTC": ZoneRules.utc, "Europe/Berlin": berlin][$0] }, local: { .utc })
        let same = (0..<5).map { h.schedule(ScheduleSpec(calendar: "*:0/15", tz: "UTC", key: "same\($0)")) }
        #expect(h.scheduler.scheduleRules.count == 1)
        _ = h.schedule(ScheduleSpec(calendar: "*:0/15", tz: "Europe/Berlin", key: "berlin"))
        _ = h.schedule(ScheduleSpec(cron: "*/15 * * * *", tz: "UTC", key: "cron"))
        _ = h.schedule(ScheduleSpec(calendar: "*:0/30", tz: "UTC", key: "other"))
        _ = h.schedule(ScheduleSpec(everyMs: 60_000, key: "interval"))
        #expect(h.scheduler.scheduleRules.count == 4, "an interval is not kept")

        // 1_800_000_000 s is 08:00:00 UTC: each shared rule elapses as its own would.
        let quarters = (1...3).map { WallTime(nanosecondsSinceEpoch: (1_800_000_000 + $0 * 900) * Harness.second) }
        for id in same { #expect(h.scheduleInfo(id)?.next == quarters) }

        let (restarted, _) = h.restarted()
        #expect(restarted.scheduler.scheduleRules.count == 4)
        for id in same { #expect(restarted.scheduleInfo(id)?.next == quarters) }
    }

    @Test("a full cache starts over, then keeps sharing")
    func startsOverWhenFull() throws {
        var cache = ScheduleRuleCache()
        for second in 0..<ScheduleRuleCache.capacity { _ = cache.shared(try rule(second: second)) }
        _ = cache.shared(try rule(second: 0))
        #expect(cache.count == ScheduleRuleCache.capacity, "a rule already kept is not kept twice")
        _ = cache.shared(try rule(second: ScheduleRuleCache.capacity))
        #expect(cache.count == 1)
        _ = cache.shared(try rule(second: ScheduleRuleCache.capacity))
        _ = cache.shared(try rule(second: 1))
        #expect(cache.count == 2)
    }
}
