import ReqdProtocol

/// A countdown's state: its deadline and tick. Time left is always `deadline - now`; nothing is
/// decremented, so it is right after a stall or a suspend.
///
/// 32 bytes inline: what only an expired countdown or one with `on_expire` has is boxed.
public struct Countdown: Sendable, Hashable {
    /// The request to send as a job of its own at expiry: its request and retry policy.
    public var onExpire: Box<Delivery>?
    private var expiry: Box<Expiry>?
    /// When it expires, on the boot-time clock.
    public var deadline: Instant
    /// The tick interval in nanoseconds.
    public var tick: Int64

    /// What a countdown's expiry recorded.
    struct Expiry: Sendable, Hashable {
        var lateBy: Int64?
        var spawned: JobID?
    }

    public init(deadline: Instant, tick: Int64, lateBy: Int64?, onExpire: Box<Delivery>? = nil, spawned: JobID? = nil) {
        self.onExpire = onExpire
        self.deadline = deadline
        self.tick = tick
        if lateBy != nil || spawned != nil { expiry = Box(Expiry(lateBy: lateBy, spawned: spawned)) }
    }

    /// How late the expiry was handled, once it has expired.
    public var lateBy: Int64? {
        get { expiry?.value.lateBy }
        set { expiry = Box(Expiry(lateBy: newValue, spawned: spawned)) }
    }

    /// The request job the expiry started.
    public var spawned: JobID? {
        get { expiry?.value.spawned }
        set { expiry = Box(Expiry(lateBy: lateBy, spawned: newValue)) }
    }

    /// Where the countdown's timer leaves it.
    public enum Step: Sendable, Hashable {
        /// Time is left: one tick, with the milliseconds left.
        case tick(remainingMs: Int64)
        /// The deadline has passed, this many nanoseconds ago.
        case expired(lateBy: Int64)
    }

    /// Handles the countdown's timer: expiry once the deadline has passed, otherwise one tick.
    public mutating func fire(at now: Instant) -> Step {
        let remaining = deadline.nanoseconds(since: now)
        guard remaining > 0 else {
            lateBy = -remaining
            return .expired(lateBy: -remaining)
        }
        return .tick(remainingMs: Instant.roundedMilliseconds(remaining))
    }

    /// The next instant the countdown needs the timer: its next tick when someone watches it, else its deadline.
    ///
    /// Ticks fall where the time left is a whole multiple of the tick, strictly after `now`, so a
    /// countdown that was suspended past several ticks gets one tick (or its expiry), never a burst.
    public func nextFire(at now: Instant, watched: Bool) -> Instant {
        let remaining = deadline.nanoseconds(since: now)
        guard remaining > 0, watched else { return deadline }
        let wholeTicks = (remaining - 1) / tick
        return wholeTicks >= 1 ? deadline.advanced(by: -wholeTicks * tick) : deadline
    }

    /// The milliseconds left at `now`, never below zero.
    public func remainingMs(at now: Instant) -> Int64 {
        Instant.roundedMilliseconds(max(0, deadline.nanoseconds(since: now)))
    }
}
