import ReqdCore
@testable import ReqdDaemon
import Testing

@Suite("The one instant the timer fires at")
struct WakeupPlanTests {
    private static func at(_ seconds: Int64) -> Instant { Instant(nanoseconds: seconds * 1_000_000_000) }

    @Test("a job deadline arms the timer once; nothing waiting disarms it once")
    func jobDeadline() {
        var plan = WakeupPlan()
        #expect(plan.nextArming() == .keep, "never armed, nothing waiting: no wake-up at all")
        plan.jobDeadline = Self.at(10)
        #expect(plan.nextArming() == .arm(Self.at(10)))
        #expect(plan.nextArming() == .keep)
        plan.jobDeadline = Self.at(5)
        #expect(plan.nextArming() == .arm(Self.at(5)))
        plan.jobDeadline = nil
        #expect(plan.nextArming() == .disarm)
        #expect(plan.nextArming() == .keep)
    }

    @Test("a fired one-shot timer is unarmed: the same deadline arms it again")
    func firedUnarms() {
        var plan = WakeupPlan()
        plan.jobDeadline = Self.at(10)
        _ = plan.nextArming()
        #expect(plan.fired(at: Self.at(9)) == WakeupPlan.Due(watchdog: false, jobs: false))
        #expect(plan.nextArming() == .arm(Self.at(10)))
        #expect(plan.fired(at: Self.at(10)) == WakeupPlan.Due(watchdog: false, jobs: true))
        plan.jobDeadline = nil
        #expect(plan.nextArming() == .keep, "fired and nothing left: it stays unarmed without a call")
    }

    @Test("the watchdog is pinged every half interval, and the earliest of the three instants wins")
    func watchdogAndStatus() {
        var plan = WakeupPlan()
        plan.enableWatchdog(intervalNanos: 20_000_000_000, at: Self.at(0))
        plan.jobDeadline = Self.at(30)
        #expect(plan.nextArming() == .arm(Self.at(10)))
        plan.statusDeadline = Self.at(4)
        #expect(plan.nextArming() == .arm(Self.at(4)))
        plan.statusDeadline = nil
        #expect(plan.fired(at: Self.at(10)) == WakeupPlan.Due(watchdog: true, jobs: false))
        #expect(plan.nextWatchdog == Self.at(20))
        #expect(plan.nextArming() == .arm(Self.at(20)))
    }

    @Test("a wall-clock step re-arms the same instant")
    func clockStep() {
        var plan = WakeupPlan()
        plan.jobDeadline = Self.at(10)
        _ = plan.nextArming()
        plan.clockStepped()
        #expect(plan.nextArming() == .arm(Self.at(10)))
    }
}
