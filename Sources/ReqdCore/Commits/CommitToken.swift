import ReqdProtocol

/// A number that ties a commit barrier to its completion.
public struct CommitToken: Hashable, Sendable {
    public var rawValue: UInt64

    /// Wraps a raw value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}
