/// A pattern of wall-clock times in a zone: the instants at which it elapses.
///
/// Around a clock change the rule is the one cron has kept for decades, and the one the schedule
/// kind documents: a fixed hour that falls in a spring-forward gap elapses once, at the first
/// instant after the gap, and one that the fall-back repeats elapses once, at its first
/// occurrence. A pattern over several hours (`*:00`, `0/4:30`) elapses at every real instant it
/// matches, both passes of a repeated hour included, and at none of a gap's missing times.
public struct Recurrence: Sendable {
    public let pattern: any CivilPattern
    public let zone: ZoneRules

    public init(pattern: any CivilPattern, zone: ZoneRules) {
        self.pattern = pattern
        self.zone = zone
    }

    /// The first elapse strictly after `instant` (microseconds since the epoch); nil when none
    /// comes before the year 2200.
    public func next(after instant: Int64) -> Int64? {
        let seconds = instant.floorDivided(by: 1_000_000)
        let offset = Int64(zone.localTimeType(at: seconds).offset) * 1_000_000
        let local = instant + offset
        let spread = Int64(zone.offsetRange.upperBound - zone.offsetRange.lowerBound) * 1_000_000
        guard let first = pattern.firstMatch(atOrAfter: CivilTime(localMicroseconds: local + 1)) else { return nil }
        let firstInstant = first.localMicroseconds - offset
        if zone.transitions(from: seconds - spread / 1_000_000 - 1, through: firstInstant.floorDivided(by: 1_000_000) + 1).isEmpty {
            return firstInstant
        }
        return nearChange(after: instant, local: local, spread: spread)
    }

    /// The next `count` elapses after `instant`.
    public func elapses(after instant: Int64, count: Int) -> [Int64] {
        var found: [Int64] = []
        var from = instant
        while found.count < count, let next = next(after: from) {
            found.append(next)
            from = next
        }
        return found
    }

    /// The slow way, near a clock change: every matching wall-clock time from `spread` before
    /// `local` on, each resolved in the zone, until none can come sooner than the best found.
    private func nearChange(after instant: Int64, local: Int64, spread: Int64) -> Int64? {
        let latestOffset = Int64(zone.offsetRange.upperBound) * 1_000_000
        var best: Int64?
        var from = CivilTime(localMicroseconds: local - spread)
        while let match = pattern.firstMatch(atOrAfter: from) {
            let matchLocal = match.localMicroseconds
            if let best, matchLocal - latestOffset > best { break }
            for candidate in instants(of: matchLocal) where candidate > instant && candidate < (best ?? .max) {
                best = candidate
            }
            from = CivilTime(localMicroseconds: matchLocal + 1)
        }
        return best
    }

    /// The instants one matching wall-clock time stands for, by the rule above.
    private func instants(of local: Int64) -> [Int64] {
        switch zone.resolve(localMicroseconds: local) {
        case .unique(let instant): [instant]
        case .repeated(let first, let second): pattern.repeatsHour ? [first, second] : [first]
        case .skipped(let gapEnd): pattern.repeatsHour ? [] : [gapEnd]
        }
    }
}
