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

    /// A fresh job id for `kind`, made at `time`: its prefix, four base-32 characters of the
    /// millisecond (which wrap every 17.5 minutes) and eight random ones (40 bits).
    ///
    /// Ids made close together in time sort together, so the jobs one commit writes share a few
    /// pages of the store's index on ids, where random ids each took a page of their own: that was
    /// a third of a commit's frames at 50 clients. The random part stays unguessable and, as a
    /// clash needs the same millisecond on the 17.5-minute wheel, clashes less than 50 bits spread
    /// over every id. 15 bytes in all, so an id fits inside a `String` without a heap allocation.
    public mutating func jobID(kind: JobKind, at time: WallTime) -> JobID {
        let millisecond = UInt64(bitPattern: time.nanosecondsSinceEpoch / 1_000_000)
        var characters = Array(kind.idPrefix.utf8)
        characters.reserveCapacity(characters.count + Self.timeCharacters + Self.randomCharacters)
        for place in (0..<Self.timeCharacters).reversed() {
            characters.append(Self.alphabet[Int((millisecond >> UInt64(5 * place)) & 31)])
        }
        var bits = next()
        for _ in 0..<Self.randomCharacters {
            characters.append(Self.alphabet[Int(bits & 31)])
            bits >>= 5
        }
        return JobID(String(decoding: characters, as: UTF8.self))
    }

    /// The characters of an id's millisecond, most significant first.
    static let timeCharacters = 4
    /// The random characters after them.
    static let randomCharacters = 8
}
