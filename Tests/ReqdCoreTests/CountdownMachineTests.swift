import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let ms = Fixture.ms

@Suite("Countdown machine, alone")
struct CountdownMachineTests {
    @Test("a watched countdown ticks where the time left is a whole multiple of the tick, strictly after now")
    func ticksOnWholeMultiples() {
        var countdown = Countdown(deadline: at(10 * second), tick: 3 * second, lateBy: nil)
        #expect(countdown.advance(at: at(0), watched: true) == JobAction(deadline: .set(at(1 * second))))
        #expect(
            countdown.timerFired(at: reading(1 * second), watched: true)
                == JobAction(deadline: .set(at(4 * second)), notes: [JobNote(.tick, remainingMs: 9_000)]))
        // Handled 200 ms late: the tick says so, and the next one still falls on a multiple.
        #expect(
            countdown.timerFired(at: reading(4_200 * ms), watched: true)
                == JobAction(deadline: .set(at(7 * second)), notes: [JobNote(.tick, remainingMs: 5_800)]))
        #expect(
            countdown.timerFired(at: reading(7 * second), watched: true)
                == JobAction(deadline: .set(at(10 * second)), notes: [JobNote(.tick, remainingMs: 3_000)]))
    }

    @Test("a countdown suspended past several ticks gets one tick, never a burst")
    func oneTickAfterASuspend() {
        var countdown = Countdown(deadline: at(10 * second), tick: 1 * second, lateBy: nil)
        #expect(
            countdown.timerFired(at: reading(5_500 * ms), watched: true)
                == JobAction(deadline: .set(at(6 * second)), notes: [JobNote(.tick, remainingMs: 4_500)]))
    }

    @Test("an unwatched countdown needs the timer only for its expiry")
    func unwatchedOnlyExpires() {
        var countdown = Countdown(deadline: at(10 * second), tick: 1 * second, lateBy: nil)
        #expect(countdown.advance(at: at(0), watched: false) == JobAction(deadline: .set(at(10 * second))))
        // Its last watcher left after the tick was planned: that tick is the last one.
        #expect(
            countdown.timerFired(at: reading(3 * second), watched: false)
                == JobAction(deadline: .set(at(10 * second)), notes: [JobNote(.tick, remainingMs: 7_000)]))
    }

    @Test("past the deadline the countdown expires once, recording how late")
    func expiresWithLateBy() {
        var countdown = Countdown(deadline: at(10 * second), tick: 1 * second, lateBy: nil)
        #expect(countdown.fire(at: at(10_250 * ms)) == .expired(lateBy: 250 * ms))
        #expect(countdown.lateBy == 250 * ms)
        #expect(countdown.remainingMs(at: at(10_250 * ms)) == 0)

        var onTime = Countdown(deadline: at(10 * second), tick: 1 * second, lateBy: nil)
        #expect(onTime.timerFired(at: reading(10 * second), watched: true) == JobAction(end: JobEnd(.expired)))
        #expect(onTime.lateBy == 0)
    }

    @Test("the on_expire request comes back as the end's report")
    func onExpireIsTheReport() {
        let request = Fixture.delivery("https://hooks.example/expired")
        var countdown = Countdown(deadline: at(10 * second), tick: 1 * second, lateBy: nil, onExpire: Box(request))
        #expect(countdown.timerFired(at: reading(12 * second), watched: false) == JobAction(end: JobEnd(.expired, report: request)))
        #expect(countdown.lateBy == 2 * second)
    }
}
