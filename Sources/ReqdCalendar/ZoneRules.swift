/// A time zone's rules, read from the system's TZif files: the offset from UTC at any instant and
/// what a wall-clock time there is in UTC.
///
/// A class, immutable: a zone's rules take a few hundred bytes, and a million schedules in one
/// zone share one copy (the daemon reads each zone once).
public final class ZoneRules: Hashable, Sendable {
    /// The name it was loaded by (`Europe/Berlin`, `UTC`).
    public let name: String
    /// Listed changes, oldest first.
    let transitions: [ZoneTransition]
    /// The local time before the first listed change.
    let initial: LocalTimeType
    /// The rule for instants after the last listed change.
    let rule: PosixZoneRule?
    /// The smallest and largest offsets the zone ever uses, in seconds.
    let offsetRange: ClosedRange<Int>

    init(name: String, transitions: [ZoneTransition], initial: LocalTimeType, rule: PosixZoneRule?) {
        self.name = name
        self.transitions = transitions
        self.initial = initial
        self.rule = rule
        var offsets = [initial.offset] + transitions.map(\.after.offset)
        if let rule { offsets += [rule.standard.offset, rule.daylight?.offset ?? rule.standard.offset] }
        offsetRange = offsets.min()!...offsets.max()!
    }

    public static func == (a: ZoneRules, b: ZoneRules) -> Bool {
        a === b || (a.name == b.name && a.transitions == b.transitions && a.initial == b.initial && a.rule == b.rule)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// UTC.
    public static let utc = ZoneRules(
        name: "UTC", transitions: [], initial: LocalTimeType(offset: 0, isDST: false, abbreviation: "UTC"), rule: nil)

    /// The local time in effect at `seconds` since the epoch.
    public func localTimeType(at seconds: Int64) -> LocalTimeType {
        let lastListed = transitions.last?.at ?? .min
        if let rule, seconds >= lastListed {
            let year = Self.year(of: seconds)
            return (year - 1...year + 1).flatMap(rule.transitions(inYear:))
                .last { $0.at <= seconds && $0.at > lastListed }?.after ?? transitions.last?.after ?? initial
        }
        let index = firstListed(after: seconds)
        return index == 0 ? initial : transitions[index - 1].after
    }

    /// The changes in `from...through` (seconds since the epoch), in order.
    public func transitions(from: Int64, through: Int64) -> [ZoneTransition] {
        var found: [ZoneTransition] = []
        var index = firstListed(after: from - 1)
        while index < transitions.count, transitions[index].at <= through {
            found.append(transitions[index])
            index += 1
        }
        let lastListed = transitions.last?.at ?? .min
        guard let rule, through > lastListed else { return found }
        for year in Self.year(of: Swift.max(from, lastListed)) - 1...Self.year(of: through) + 1 {
            found += rule.transitions(inYear: year).filter { $0.at > lastListed && $0.at >= from && $0.at <= through }
        }
        return found
    }

    /// The index of the first listed change after `seconds`.
    private func firstListed(after seconds: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle].at <= seconds { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// What the wall-clock time `local` (microseconds since 1970-01-01 00:00 on that clock) is.
    public func resolve(localMicroseconds local: Int64) -> LocalResolution {
        let localSeconds = local.floorDivided(by: 1_000_000)
        let from = localSeconds - Int64(offsetRange.upperBound) - 1
        let through = localSeconds - Int64(offsetRange.lowerBound) + 1
        let changes = transitions(from: from, through: through)
        var periodStart = Int64.min
        var offset = localTimeType(at: from).offset
        var found: [Int64] = []
        for index in 0...changes.count {
            let periodEnd = index < changes.count ? changes[index].at * 1_000_000 : .max
            let instant = local - Int64(offset) * 1_000_000
            if instant >= periodStart, instant < periodEnd { found.append(instant) }
            if index < changes.count {
                periodStart = periodEnd
                offset = changes[index].after.offset
            }
        }
        switch found.count {
        case 1: return .unique(found[0])
        case 0:
            let gap = changes.first { change in
                let start = (change.at + Int64(change.before.offset)) * 1_000_000
                let end = (change.at + Int64(change.after.offset)) * 1_000_000
                return local >= start && local < end
            }
            return .skipped(gapEnd: (gap?.at ?? localSeconds) * 1_000_000)
        default: return .repeated(found[0], found[found.count - 1])
        }
    }

    private static func year(of seconds: Int64) -> Int {
        CivilTime.date(fromDays: Int(seconds.floorDivided(by: 86_400))).year
    }
}

extension ZoneRules {
    /// The same rules under another name.
    public func renamed(_ name: String) -> ZoneRules {
        ZoneRules(name: name, transitions: transitions, initial: initial, rule: rule)
    }
}
