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
