/// Targets whose requests are failing now, for `metrics` and `reqd-client top`.
///
/// A target is an origin (scheme, host and port). Every end of a request the scheduler asked for
/// counts: a 5xx or 429 answer, an answer too large to take, or no answer at all, adds to the target's failures in a row; any
/// other answer clears them. A refusal by the target policy does not count: nothing was sent.
/// The table keeps at most `capacity` targets, dropping the one that failed longest ago, and
/// forgets a target with no failure for `staleNanos`, so a daemon that talked to many hosts once
/// does not carry them all.
struct TargetHealth: Sendable {
    /// One failing target.
    struct Entry: Sendable, Equatable {
        /// When its current run of failures began.
        var since: Instant
        /// When it last failed.
        var last: Instant
        var failures: Int
        var lastStatus: Int?
        var error: String
        /// Whose jobs met the failures, and when each last did: a user sees a target only while
        /// their own jobs fail against it.
        var owners: [UInt32: Instant]
    }

    static let capacity = 256
    static let staleNanos: Int64 = 600_000_000_000

    private(set) var entries: [String: Entry] = [:]

    /// Whether `outcome` could change the table: the common case, a good answer while nothing
    /// fails, does not, and its origin need not even be worked out.
    func cares(about outcome: HTTPOutcome) -> Bool {
        switch outcome {
        case .response(let answer): !entries.isEmpty || Self.isFailure(answer.status)
        case .failure, .rejected, .unreachable: true
        case .denied: false
        }
    }

    /// Counts the end of a request to `origin` made for a job of `owner`.
    mutating func record(_ outcome: HTTPOutcome, origin key: String, owner: UInt32, at now: Instant) {
        let failure: (status: Int?, error: String)
        switch outcome {
        case .response(let answer) where Self.isFailure(answer.status):
            failure = (answer.status, "the server answered \(answer.status)")
        case .response:
            entries[key] = nil
            return
        case .failure(let why), .rejected(let why), .unreachable(let why):
            failure = (nil, why)
        case .denied:
            return
        }
        if var entry = entries[key] {
            entry.last = now
            entry.failures += 1
            entry.lastStatus = failure.status
            entry.error = failure.error
            entry.owners[owner] = now
            entries[key] = entry
            return
        }
        if entries.count >= Self.capacity { dropOldest(at: now) }
        entries[key] = Entry(since: now, last: now, failures: 1, lastStatus: failure.status, error: failure.error, owners: [owner: now])
    }

    /// The targets failing now that `peer` may see, most failures in a row first.
    func failing(visibleTo peer: Peer, at now: Instant) -> [(origin: String, entry: Entry)] {
        entries.lazy
            .filter { $0.value.last.advanced(by: Self.staleNanos) > now }
            .filter { peer.uid == 0 || $0.value.owners[peer.uid].map { $0.advanced(by: Self.staleNanos) > now } == true }
            .map { (origin: $0.key, entry: $0.value) }
            .sorted { ($0.entry.failures, $1.origin) > ($1.entry.failures, $0.origin) }
    }

    private static func isFailure(_ status: Int) -> Bool { status >= 500 || status == 429 }

    /// Makes room: the stale targets go, or else the one whose last failure is oldest.
    private mutating func dropOldest(at now: Instant) {
        entries = entries.filter { $0.value.last.advanced(by: Self.staleNanos) > now }
        guard entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.last < $1.value.last }) else { return }
        entries[oldest.key] = nil
    }
}
