import ReqdProtocol

/// A job's last attempts in memory (`AttemptInfo.kept` of them), oldest first: an ephemeral
/// request or poll job's, and an active durable poll's.
///
/// A durable request job keeps none in memory: each attempt is written to the store as it ends,
/// and `status --attempts` reads them back from there. A durable poll answers far more often, so
/// its attempts stay here while it runs and are written when it ends, when the daemon stops, and
/// at an answer after which the next poll would start `poll.attempts_write_interval` or more
/// after the first attempt since the last write (`takeUnwritten()`); after that the store has
/// them. An ephemeral job has no store: its log stays with it until it is forgotten.
public struct AttemptLog: Sendable, Hashable {
    public private(set) var entries: [AttemptInfo] = []
    /// How many of the newest entries the store does not have yet (the high 8 bits), and when the
    /// first attempt since the last write started, in milliseconds since the epoch (the low 56
    /// bits): that attempt may have left the log since. One word, so that every request and poll
    /// job's slot pays 8 bytes for it.
    private var pending: UInt64 = 0

    /// How many of the newest entries the store does not have yet.
    public var unwritten: Int { Int(pending >> 56) }

    /// A log of `entries` that the store already has (a durable poll's, restored).
    public init(written entries: [AttemptInfo] = []) {
        self.entries = Array(entries.suffix(AttemptInfo.kept))
    }

    /// Adds an attempt, dropping the oldest past `AttemptInfo.kept`.
    public mutating func append(_ attempt: AttemptInfo) {
        if entries.count >= AttemptInfo.kept { entries.removeFirst(entries.count - AttemptInfo.kept + 1) }
        entries.append(attempt)
        let since =
            unwritten == 0
            ? UInt64(clamping: attempt.startedAt.nanosecondsSinceEpoch / 1_000_000) & Self.sinceMask : pending & Self.sinceMask
        pending = UInt64(min(unwritten + 1, entries.count)) << 56 | since
    }

    private static var sinceMask: UInt64 { (1 << 56) - 1 }

    /// Sets the address of attempt `number`, when it is the last one logged and has none: an
    /// attempt aborted at its request timeout learns where it went only after it was logged.
    ///
    /// - Returns: true when it was set on an entry the store already has, which needs it too.
    @discardableResult
    public mutating func setAddress(_ address: String, ofAttempt number: Int) -> Bool {
        guard let last = entries.indices.last, entries[last].number == number, entries[last].address == nil else {
            return false
        }
        entries[last].address = address
        return unwritten == 0
    }

    /// Whether the first attempt since the last write started `interval` nanoseconds or more
    /// before `now` (or after it: the wall clock was set back); `now` may be ahead of the clock,
    /// at the next poll's start.
    func hasUnwritten(olderThan interval: Int64, at now: WallTime) -> Bool {
        guard unwritten > 0 else { return false }
        let age = now.nanosecondsSinceEpoch / 1_000_000 - Int64(pending & Self.sinceMask)
        return age >= interval / 1_000_000 || age < 0
    }

    /// The entries the store does not have yet, oldest first; from now on it has them.
    mutating func takeUnwritten() -> ArraySlice<AttemptInfo> {
        defer { pending = 0 }
        return entries.suffix(unwritten)
    }
}
