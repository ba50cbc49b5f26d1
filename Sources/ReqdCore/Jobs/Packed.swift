/// An optional held in its value's own width, nil being a value the property never takes.
///
/// `Int64?`, `Instant?` or `Double?` take 9 bytes, 16 once the next field is aligned; a poll's
/// machine has seven of them, and a million retained jobs pay for each. `@Packed` holds them in 8.
@propertyWrapper
public struct Packed<Value: PackedOptional>: Sendable, Hashable {
    private var raw: Value.Raw

    /// Holds `wrappedValue`, which must not be the value that stands for nil.
    public init(wrappedValue: Value?) {
        raw = wrappedValue?.packedRaw ?? Value.absentRaw
    }

    /// The value, or nil.
    public var wrappedValue: Value? {
        get { raw == Value.absentRaw ? nil : Value(packedRaw: raw) }
        set { raw = newValue?.packedRaw ?? Value.absentRaw }
    }
}

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
    public static var absentRaw: Int64 { .min }
    public init(packedRaw: Int64) { self = packedRaw }
    public var packedRaw: Int64 { self }
}

/// Counts, limits and HTTP statuses: never `Int.min`.
extension Int: PackedOptional {
    public static var absentRaw: Int { .min }
    public init(packedRaw: Int) { self = packedRaw }
    public var packedRaw: Int { self }
}

/// Instants on the boot-time clock: never `Instant.distantPast`.
extension Instant: PackedOptional {
    public static var absentRaw: Int64 { .min }
    public init(packedRaw: Int64) { self.init(nanoseconds: packedRaw) }
    public var packedRaw: Int64 { nanoseconds }
}

/// Progress values read from JSON, which has no NaN: held by their bits, so nil is a NaN with a
/// payload no arithmetic makes, and equality is the bits'.
extension Double: PackedOptional {
    public static var absentRaw: UInt64 { 0x7FF8_0000_5EED_0001 }
    public init(packedRaw: UInt64) { self.init(bitPattern: packedRaw) }
    public var packedRaw: UInt64 { bitPattern }
}
