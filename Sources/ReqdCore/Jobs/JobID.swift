import ReqdProtocol

/// A job's identifier, such as `cd_1f7k2m9x4q1b`: a kind prefix and twelve base-32 characters, the
/// first four from the time it was made (`RandomSource.jobID(kind:at:)`).
public struct JobID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier as shown on the wire.
    public var rawValue: String

    /// Wraps an identifier read from the wire or the store.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension JobID {
    /// The kind the id's prefix names; nil for an id reqd never made, which names no job.
    public var kind: JobKind? {
        var bytes = rawValue.utf8.makeIterator()
        guard let first = bytes.next(), let second = bytes.next(), bytes.next() == UInt8(ascii: "_") else { return nil }
        switch (first, second) {
        case (UInt8(ascii: "c"), UInt8(ascii: "d")): return .countdown
        case (UInt8(ascii: "p"), UInt8(ascii: "l")): return .poll
        case (UInt8(ascii: "r"), UInt8(ascii: "q")): return .request
        case (UInt8(ascii: "g"), UInt8(ascii: "r")): return .group
        case (UInt8(ascii: "s"), UInt8(ascii: "c")): return .schedule
        default: return nil
        }
    }
}

extension JobKind {
    /// The prefix of this kind's job ids.
    var idPrefix: String {
        switch self {
        case .countdown: "cd_"
        case .poll: "pl_"
        case .request: "rq_"
        case .group: "gr_"
        case .schedule: "sc_"
        }
    }
}
