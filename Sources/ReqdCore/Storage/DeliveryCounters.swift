import ReqdProtocol

/// A request job's attempts so far and when the next one starts.
public struct DeliveryCounters: Sendable, Hashable, Codable {
    /// Attempts that ended; one out at a crash is not counted, and is sent again.
    public var attempts: Int
    /// When the next attempt starts, on the wall clock.
    public var nextAttempt: WallTime?
    public var lastStatus: Int?
    public var lastError: String?

    enum CodingKeys: String, CodingKey {
        case attempts
        case nextAttempt = "next_attempt"
        case lastStatus = "last_status"
        case lastError = "last_error"
    }
}

extension DeliveryCounters {
    /// A delivery's counters, with its next attempt on the wall clock. An attempt out now is not
    /// counted and has no next attempt: it is sent again after a restart.
    init(_ delivery: Delivery, at now: ClockReading) {
        self.init(
            attempts: Int(delivery.attempts) - (delivery.inFlight ? 1 : 0),
            nextAttempt: delivery.inFlight ? nil : now.wall(at: delivery.nextAttempt), lastStatus: delivery.lastStatus,
            lastError: delivery.lastError)
    }
}
