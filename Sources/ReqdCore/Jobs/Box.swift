/// An immutable value kept behind one pointer.
///
/// A rarely used, large part of a job (such as a countdown's `on_expire` request) costs every job
/// of that kind its size inline; boxed, it costs one pointer, and nothing when absent.
public final class Box<Value: Sendable & Hashable>: Sendable, Hashable {
    public let value: Value

    /// Boxes a value.
    public init(_ value: consuming Value) { self.value = value }

    public static func == (lhs: Box, rhs: Box) -> Bool { lhs === rhs || lhs.value == rhs.value }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
