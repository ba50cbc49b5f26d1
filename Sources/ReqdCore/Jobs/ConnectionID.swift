/// A client connection as the scheduler knows it. Ids count from 1; 0 is never a connection.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    /// Wraps a raw value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "conn-\(rawValue)" }

    /// The other daemons sharing the store: a watcher "on" it is a daemon, named by the watcher's
    /// tag, and the events it receives go to that daemon through the store.
    public static let cluster = ConnectionID(0)
}
