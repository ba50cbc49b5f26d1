/// A value `@Packed` can hold: one of its raw values stands for nil, and no real value uses it.
public protocol PackedOptional: Sendable {
    /// What the value is held as.
    associatedtype Raw: Sendable & Hashable
    /// The raw value that stands for nil.
    static var absentRaw: Raw { get }
    /// The value a raw value holds.
    init(packedRaw: Raw)
    /// The raw value of the value.
    var packedRaw: Raw { get }
}

/// Counts, limits and durations in nanoseconds: never `Int64.min`.
extension Int64: PackedOptional {
    /// `Int64.min`.
    public static var absentRaw: Int64 { .min }
    /// The value itself.
    public init(packedRaw: Int64) { self = packedRaw }
    /// The value itself.
    public var packedRaw: Int64 { self }
}

/// Counts, limits and HTTP statuses: never `Int.min`.
extension Int: PackedOptional {
    /// `Int.min`.
    public static var absentRaw: Int { .min }
    /// The value itself.
    public init(packedRaw: Int) { self = packedRaw }
    /// The value itself.
    public var packedRaw: Int { self }
}

/// Instants on the boot-time clock: never `Instant.distantPast`.
extension Instant: PackedOptional {
    /// The nanoseconds of `Instant.distantPast`.
    public static var absentRaw: Int64 { .min }
    /// The instant `packedRaw` nanoseconds after boot.
    public init(packedRaw: Int64) { self.init(nanoseconds: packedRaw) }
    /// Nanoseconds since boot.
    public var packedRaw: Int64 { nanoseconds }
}

/// Progress values read from JSON, which has no NaN: held by their bits, so nil is a NaN with a
/// payload no arithmetic makes, and equality is the bits'.
extension Double: PackedOptional {
    /// A quiet NaN with a payload of its own.
    public static var absentRaw: UInt64 { 0x7FF8_0000_5EED_0001 }
    /// The value of the bits.
    public init(packedRaw: UInt64) { self.init(bitPattern: packedRaw) }
    /// The value's bits.
    public var packedRaw: UInt64 { bitPattern }
}
