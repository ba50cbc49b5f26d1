import ReqdCore

/// The one instant the loop's timer should fire: the earliest of the scheduler's next deadline, the
/// next watchdog ping and a held-back status update.
///
/// Pure: it remembers what the timer is armed at, and `nextArming()` asks for a change only when the
/// earliest instant moves, so the timerfd is reprogrammed only then. With nothing
/// waiting it asks for no arming at all: an idle daemon without a watchdog does not wake up.
struct WakeupPlan: Equatable {
    /// What to do with the timer.
    enum Arming: Equatable {
        case keep
        case arm(Instant)
        case disarm
    }

    /// What a wake-up found due.
    struct Due: Equatable {
        var watchdog = false
        var jobs = false
    }

    /// The scheduler's earliest deadline, as its `arm` and `disarm` effects say.
    var jobDeadline: Instant?
    /// When a held-back `STATUS=` update may go out.
    var statusDeadline: Instant?
    private(set) var nextWatchdog: Instant?
    private var watchdogInterval: Int64?
    /// What the timer is armed at; nil when it is not armed, or when its arming no longer holds.
    private var armed: Instant?

    /// Pings the watchdog every half interval from `now` on.
    mutating func enableWatchdog(intervalNanos: Int64, at now: Instant) {
        watchdogInterval = intervalNanos
        nextWatchdog = now.advanced(by: intervalNanos / 2)
    }

    /// The one-shot timer fired, so it is unarmed: says what is due, and books the next watchdog ping.
    mutating func fired(at now: Instant) -> Due {
        armed = nil
        var due = Due()
        if let ping = nextWatchdog, ping <= now, let interval = watchdogInterval {
            due.watchdog = true
            nextWatchdog = now.advanced(by: interval / 2)
        }
        if let deadline = jobDeadline, deadline <= now { due.jobs = true }
        return due
    }

    /// The wall clock was stepped: the timer's wall-clock arming no longer stands for the same instant.
    mutating func clockStepped() {
        armed = nil
    }

    /// The change the timer needs now; the plan takes it as done.
    mutating func nextArming() -> Arming {
        let target = Self.earliest(Self.earliest(jobDeadline, nextWatchdog), statusDeadline)
        guard target != armed else { return .keep }
        armed = target
        return target.map(Arming.arm) ?? .disarm
    }

    private static func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
