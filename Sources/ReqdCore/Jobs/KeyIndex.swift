/// Each owner's keys: the active job that holds each one, and every job held with it, oldest
/// first, for `list --key`.
///
/// One table serves both, and a key with one job, by far the common case, keeps that job inline
/// with no allocation of its own. Two tables (key to holder, key to a one-element array) and the
/// array cost about 200 bytes a keyed countdown at a million (heaptrack). The records sit in a
/// `Slab`, each with its key: about 56 bytes and 12 of index.
///
/// The holder is usually among the key's jobs, but need not be for a while: a restore that reads
/// two active rows with one key gives the key to the newer one (`assign`) before it files it.
struct KeyIndex: Sendable {
    typealias Entry = ListIndex.Entry

    /// The jobs of one key.
    enum Jobs: Sendable {
        /// One job, and whether it holds the key.
        case one(Entry, holds: Bool)
        /// Any other shape: several jobs, or a holder that is not the one job.
        case many(Many)
    }

    /// The jobs of a key in any shape, oldest first, and the holder. A change happens in place
    /// while one index holds it, so a key reused many times is not copied whole at each job.
    final class Many: @unchecked Sendable {
        // @unchecked Sendable: changed only in `change(_:_:)`, and only when uniquely referenced
        // (`isKnownUniquelyReferenced`); a shared one is copied first, so a copy of the index
        // (another scheduler value) never sees the change.
        fileprivate(set) var entries: [Entry]
        fileprivate(set) var holder: JobID?

        init(entries: [Entry], holder: JobID?) {
            self.entries = entries
            self.holder = holder
        }
    }

    /// A key and its jobs, as the slab holds them.
    struct Record: SlabValue {
        let key: JobTable.OwnedKey
        var jobs: Jobs

        var slabKey: JobTable.OwnedKey { key }
    }

    private var table = Slab<Record>()

    /// The number of keys with a job or a holder.
    var count: Int { table.count }

    /// The records the table has room for; for tests.
    var capacity: Int { table.capacity }

    /// The active job that holds `key`.
    func holder(of key: JobTable.OwnedKey) -> JobID? { Self.holder(of: table[key]?.jobs) }

    private static func holder(of jobs: Jobs?) -> JobID? {
        switch jobs {
        case nil: nil
        case .one(let entry, let holds)?: holds ? entry.id : nil
        case .many(let many)?: many.holder
        }
    }

    /// The jobs filed under `key`, oldest first.
    func entries(of key: JobTable.OwnedKey) -> [Entry]? {
        switch table[key]?.jobs {
        case nil: nil
        case .one(let entry, _)?: [entry]
        case .many(let many)?: many.entries.isEmpty ? nil : many.entries
        }
    }

    /// Files a job under `key`; with `holds`, it holds the key from now on, whoever held it. A job
    /// filed already stays once.
    mutating func add(_ entry: Entry, to key: JobTable.OwnedKey, holds: Bool) {
        update(key) { jobs in
            switch jobs {
            case nil:
                jobs = .one(entry, holds: holds)
            case .one(let one, let held)? where one.id == entry.id:
                jobs = .one(one, holds: held || holds)
            default:
                Self.change(&jobs) { entries, holder in
                    entries.file(entry)
                    if holds { holder = entry.id }
                }
            }
        }
    }

    /// Takes a forgotten job out of `key`'s jobs; the key goes when nothing is left of it.
    mutating func remove(_ entry: Entry, from key: JobTable.OwnedKey) {
        update(key) { jobs in
            if case .one(let one, _)? = jobs, one.id == entry.id {
                jobs = nil
                return
            }
            Self.change(&jobs) { entries, holder in
                entries.removeAll { $0.id == entry.id }
                if holder == entry.id { holder = nil }
            }
        }
    }

    /// Frees `key` when `id` holds it: that job ended.
    mutating func release(_ key: JobTable.OwnedKey, heldBy id: JobID) {
        update(key) { jobs in
            if case .one(let one, true)? = jobs, one.id == id {
                jobs = .one(one, holds: false)
            } else if Self.holder(of: jobs) == id {
                // No `Many` is bound here while `change` runs, so it can be changed in place.
                Self.change(&jobs) { _, holder in holder = nil }
            }
        }
    }

    /// Gives `key` to `id`, whoever held it; the job may be filed later.
    mutating func assign(_ key: JobTable.OwnedKey, to id: JobID) {
        update(key) { jobs in
            if case .one(let one, _)? = jobs, one.id == id {
                jobs = .one(one, holds: true)
                return
            }
            Self.change(&jobs) { _, holder in holder = id }
        }
    }

    /// Gives `key` to `entry`'s job when no job holds it, filing the job with it, in one lookup
    /// when the key is new, as it almost always is in a restore; returns the job that holds it
    /// otherwise.
    mutating func claim(_ key: JobTable.OwnedKey, for entry: Entry) -> JobID? {
        var other: JobID?
        update(key) { jobs in
            switch jobs {
            case nil:
                jobs = .one(entry, holds: true)
            case .one(let one, _)? where one.id == entry.id:
                jobs = .one(one, holds: true)
            case .one(let one, true)?:
                other = one.id
            case .many(let many)? where many.holder.map { $0 != entry.id } ?? false:
                other = many.holder
            default:
                Self.change(&jobs) { entries, holder in
                    entries.file(entry)
                    holder = entry.id
                }
            }
        }
        return other
    }

    /// Whether `key`'s jobs are kept inline; for tests.
    func isInline(_ key: JobTable.OwnedKey) -> Bool {
        if case .one? = table[key]?.jobs { true } else { false }
    }

    /// Makes room for `keys` more keys, for a restore.
    mutating func reserveCapacity(keys: Int) { table.reserveCapacity(table.count + keys) }

    /// Shrinks the table's index from `next` on, as far as `budget` goes (`Slab`).
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool { table.shrink(from: &next, &budget) }

    /// Runs `body` on `key`'s jobs, with one lookup; none left takes the key out.
    private mutating func update(_ key: JobTable.OwnedKey, _ body: (inout Jobs?) -> Void) {
        Self.update(&table[key], key, body)
    }

    private static func update(_ record: inout Record?, _ key: JobTable.OwnedKey, _ body: (inout Jobs?) -> Void) {
        // Taken out, so that the record does not keep a second reference to a `Many`.
        var jobs = record.take()?.jobs
        body(&jobs)
        record = jobs.map { Record(key: key, jobs: $0) }
    }

    /// Changes `jobs` as a list and a holder, and keeps it in its smallest shape: none when both
    /// are empty, inline for one job and no other holder.
    private static func change(_ jobs: inout Jobs?, _ body: (inout [Entry], inout JobID?) -> Void) {
        var many: Many
        switch jobs.take() {
        case nil: many = Many(entries: [], holder: nil)
        case .one(let entry, let holds)?: many = Many(entries: [entry], holder: holds ? entry.id : nil)
        case .many(let shared)?: many = shared
        }
        if !isKnownUniquelyReferenced(&many) { many = Many(entries: many.entries, holder: many.holder) }
        body(&many.entries, &many.holder)
        if many.entries.isEmpty, many.holder == nil {
            jobs = nil
        } else if many.entries.count == 1, many.holder == nil || many.holder == many.entries[0].id {
            jobs = .one(many.entries[0], holds: many.holder != nil)
        } else {
            jobs = .many(many)
        }
    }
}

extension [ListIndex.Entry] {
    /// Inserts `entry` in order unless it is here already; at the end, the common case, in O(1).
    fileprivate mutating func file(_ entry: ListIndex.Entry) {
        guard let last, !(last < entry) else { return append(entry) }
        if last == entry { return }
        let place = firstIndex { !($0 < entry) } ?? endIndex
        if place < endIndex, self[place] == entry { return }
        insert(entry, at: place)
    }
}
