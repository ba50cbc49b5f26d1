import ReqdProtocol

/// A job's last attempts in memory (`AttemptInfo.kept` of them), oldest first: an ephemeral
/// request or poll job's, and an active durable poll's.
///
/// A durable request job keeps none in memory: each attempt is written to the store as it ends,
/// and `status --attempts` reads them back from there. A durable poll answers far more often, so
/// its attempts stay here while it runs and are written when it ends or the daemon stops
/// (`takeUnwritten()`); after that the store has them. An ephemeral job has no store: its log
/// stays with it until it is forgotten.
public struct AttemptLog: Sendable, Hashable {
    public private(set) var entries: [AttemptInfo] = []
    /// How many of the newest entries the store does not have yet.
    public private(set) var unwritten = 0

    /// A log of `entries` that the store already has (a durable poll's, restored).
    public init(written entries: [AttemptInfo] = []) {
        self.entries = Array(entries.suffix(AttemptInfo.kept))
    }

    /// Adds an attempt, dropping the oldest past `AttemptInfo.kept`.
    public mutating func append(_ attempt: AttemptInfo) {
        if entries.count >= AttemptInfo.kept { entries.removeFirst(entries.count - AttemptInfo.kept + 1) }
        entries.append(attempt)
        unwritten = min(unwritten + 1, entries.count)
    }

    /// Sets the address of attempt `number`, when it is the last one logged and has none: an
    /// attempt aborted at its request timeout learns where it went only after it was logged.
    public mutating func setAddress(_ address: String, ofAttempt number: Int) {
        guard let last = entries.indices.last, entries[last].number == number, entries[last].address == nil else { return }
        entries[last].address = address
    }

    /// The entries the store does not have yet, oldest first; from now on it has them.
    mutating func takeUnwritten() -> ArraySlice<AttemptInfo> {
        defer { unwritten = 0 }
        return entries.suffix(unwritten)
    }
}
