import ReqdProtocol

/// A small deterministic generator (SplitMix64) for job ids and, later, jitter.
///
/// The daemon seeds it from the system's entropy; tests seed it with a constant so runs repeat.
public struct RandomSource: Sendable, RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in [0, 1), for jitter.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// A fresh job id for `kind`: its prefix and ten base-32 characters (50 random bits).
    public mutating func jobID(kind: JobKind) -> JobID {
        var bits = next()
        var characters = Array(kind.idPrefix.utf8)
        for _ in 0..<10 {
            characters.append(Self.alphabet[Int(bits & 31)])
            bits >>= 5
        }
        return JobID(String(decoding: characters, as: UTF8.self))
    }
}
