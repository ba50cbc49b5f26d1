import ReqdProtocol

/// A job's identifier, such as `cd_7k2m9x4q1b`: a kind prefix and ten random base-32 characters.
public struct JobID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier as shown on the wire.
    public var rawValue: String

    /// Wraps an identifier read from the wire or the store.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension JobKind {
    /// The prefix of this kind's job ids.
    var idPrefix: String {
        switch self {
        case .countdown: "cd_"
        case .poll: "pl_"
        case .request: "rq_"
        case .group: "gr_"
        }
    }
}
