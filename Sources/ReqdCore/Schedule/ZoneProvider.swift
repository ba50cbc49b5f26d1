import ReqdCalendar

/// Where the scheduler finds time zones: by name, and the daemon's local one.
///
/// Reading a zone is file I/O, which the core never does: the daemon hands in a provider that
/// reads the system's files once per zone and keeps them (`ZoneCache`). The default knows UTC alone.
public struct ZoneProvider: Sendable {
    /// The zone with an IANA name (or `UTC`); nil when there is none by that name.
    public var named: @Sendable (String) -> ZoneRules?
    /// The daemon's local zone now.
    public var local: @Sendable () -> ZoneRules

    public init(named: @escaping @Sendable (String) -> ZoneRules?, local: @escaping @Sendable () -> ZoneRules) {
        self.named = named
        self.local = local
    }

    /// UTC only: every other name is unknown, and the local zone is UTC.
    public static let utcOnly = ZoneProvider(named: { $0 == "UTC" ? .utc : nil }, local: { .utc })
}
