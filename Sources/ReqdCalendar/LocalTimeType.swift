/// One kind of local time a zone keeps: its offset from UTC, whether it is daylight saving time,
/// and its abbreviation (`CEST`).
public struct LocalTimeType: Hashable, Sendable {
    /// Seconds east of UTC.
    public var offset: Int
    public var isDST: Bool
    public var abbreviation: String

    public init(offset: Int, isDST: Bool, abbreviation: String) {
        self.offset = offset
        self.isDST = isDST
        self.abbreviation = abbreviation
    }
}
