import ReqdProtocol

/// A schedule's rule and options as stored, written once with its insert.
///
/// The rule is kept as its normal form, which parses back to the same rule; a zone given by
/// name is kept by name, and a schedule in the local zone follows whatever the local zone is
/// when it is read back.
public struct ScheduleSettings: Sendable, Hashable, Codable {
    public var calendar: String?
    public var cron: String?
    public var everyNanos: Int64?
    public var anchor: WallTime?
    /// The zone's name; nil for the daemon's local zone.
    public var tz: String?
    public var overlap: ScheduleOverlap
    public var catchUp: ScheduleCatchUp
    public var randomizedDelayNanos: Int64
    public var fixedDelay: Bool
    public var request: DeliverySettings?

    enum CodingKeys: String, CodingKey {
        case calendar, cron
        case everyNanos = "every_ns"
        case anchor, tz, overlap
        case catchUp = "catch_up"
        case randomizedDelayNanos = "randomized_delay_ns"
        case fixedDelay = "fixed_delay"
        case request = "schedule_request"
    }
}
