/// The instant a zone's clocks change, with the local time before and after.
public struct ZoneTransition: Hashable, Sendable {
    /// Seconds since the epoch, UTC.
    public var at: Int64
    public var before: LocalTimeType
    public var after: LocalTimeType
}
