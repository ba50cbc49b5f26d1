import ReqdCalendar
import ReqdCore
import Synchronization

/// The system's time zones, each read from its TZif file once and kept until the daemon stops (the
/// local zone is read again when `/etc/localtime` changes or the clock is set): the
/// scheduler's queue asks for a zone on every schedule registration, and must not read a file
/// each time. Names that name no zone are remembered too (up to `maxMisses`), so a client that
/// sends made-up names does not make the queue open files either.
final class ZoneCache: Sendable {
    private struct Known {
        var zones: [String: ZoneRules] = [:]
        var misses: Set<String> = []
    }

    static let maxMisses = 1_024
    private let database: ZoneDatabase
    private let known = Mutex(Known())
    private let localZone: Mutex<ZoneRules>

    init(database: ZoneDatabase = ZoneDatabase()) {
        self.database = database
        localZone = Mutex(database.localZone())
    }

    /// Reads the local zone again (`$TZ`, then `/etc/localtime`); true when it changed.
    func reloadLocal() -> Bool {
        let now = database.localZone()
        return localZone.withLock { current in
            guard current != now else { return false }
            current = now
            return true
        }
    }

    /// The local zone as last read.
    var local: ZoneRules { localZone.withLock { $0 } }

    /// The zone named `name`, read on first use; nil when the system has none by that name.
    func zone(named name: String) -> ZoneRules? {
        let cached: (ZoneRules?, Bool) = known.withLock { ($0.zones[name], $0.misses.contains(name)) }
        if let zone = cached.0 { return zone }
        if cached.1 { return nil }
        guard let loaded = try? database.zone(named: name) else {
            known.withLock { if $0.misses.count < Self.maxMisses { $0.misses.insert(name) } }
            return nil
        }
        known.withLock { $0.zones[name] = loaded }
        return loaded
    }

    /// The provider the scheduler and the restore use.
    var provider: ZoneProvider {
        ZoneProvider(named: { [self] in zone(named: $0) }, local: { [self] in local })
    }
}
