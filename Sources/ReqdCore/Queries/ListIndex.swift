import ReqdProtocol

/// The jobs `list` walks, in creation order, split by owner, state and kind, and again by scope
/// for the jobs that have one. A list reads only the leaves its filters select and merges them,
/// so it costs O(limit · log leaves + leaves · log n) whatever else the daemon holds.
///
/// A job is in one leaf for its owner, state and kind, plus one for its scope when it has one;
/// it moves between them when it ends or a `retry` makes it active again. A list by key reads
/// the key's short list in `KeyIndex` instead, whatever its jobs' states: a key holds one active
/// job and the ended ones retention keeps, so that list walks them all and filters. The order is
/// (`created_at`, id), the order `list` has always shown and a restore reads jobs in.
struct ListIndex: Sendable {
    /// A job's place in creation order.
    struct Entry: Comparable, Hashable, Sendable {
        var createdAt: Int64
        var id: JobID

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.createdAt != rhs.createdAt ? lhs.createdAt < rhs.createdAt : lhs.id < rhs.id
        }
    }

    /// Which of a job's leaves: every job is in `all`; one with a scope is also in its scope's.
    enum Group: Hashable, Sendable {
        case all
        case scope(String)
    }

    struct LeafKey: Hashable, Sendable {
        var owner: UInt32
        var group: Group
        var state: JobState
        var kind: JobKind
    }

    private(set) var leaves: [LeafKey: SortedChunks<Entry>] = [:]

    /// The number of jobs indexed.
    private(set) var count = 0

    static func entry(_ header: JobHeader) -> Entry { Entry(createdAt: header.createdAt.nanosecondsSinceEpoch, id: header.id) }

    /// Calls `body` with each leaf a job is in while its state is `state`: one, or two with a scope.
    private static func forEachLeaf(of header: JobHeader, in state: JobState, _ body: (LeafKey) -> Void) {
        body(LeafKey(owner: header.owner, group: .all, state: state, kind: header.kind))
        if let scope = header.scope { body(LeafKey(owner: header.owner, group: .scope(scope), state: state, kind: header.kind)) }
    }

    mutating func insert(_ header: JobHeader) {
        count += 1
        let entry = Self.entry(header)
        add(entry, to: header, in: header.state)
    }

    mutating func remove(_ header: JobHeader) {
        count -= 1
        let entry = Self.entry(header)
        remove(entry, of: header, in: header.state)
    }

    /// Moves a job whose state changed from `old` to its header's.
    mutating func move(_ header: JobHeader, from old: JobState) {
        guard old != header.state else { return }
        let entry = Self.entry(header)
        remove(entry, of: header, in: old)
        add(entry, to: header, in: header.state)
    }

    private mutating func add(_ entry: Entry, to header: JobHeader, in state: JobState) {
        Self.forEachLeaf(of: header, in: state) { key in leaves[key, default: SortedChunks()].insert(entry) }
    }

    private mutating func remove(_ entry: Entry, of header: JobHeader, in state: JobState) {
        Self.forEachLeaf(of: header, in: state) { key in
            leaves[key]?.remove(entry)
            if leaves[key]?.isEmpty == true { leaves[key] = nil }
        }
    }

    /// The leaves a list with `filter` reads, for the owners in `owners`; its key, if it has one,
    /// is `KeyIndex`'s.
    func leaves(for filter: ListRequest, owners: some Sequence<UInt32>) -> [SortedChunks<Entry>] {
        let group: Group = filter.scope.map { .scope($0) } ?? .all
        let states = filter.state.map { [$0] } ?? JobState.allCases
        let kinds = filter.kind.map { [$0] } ?? JobKind.allCases
        var found: [SortedChunks<Entry>] = []
        for owner in owners {
            for state in states {
                for kind in kinds {
                    if let leaf = leaves[LeafKey(owner: owner, group: group, state: state, kind: kind)] { found.append(leaf) }
                }
            }
        }
        return found
    }

    /// Shrinks the table of leaves after many emptied; each leaf gives its chunks back as they empty.
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { leaves.shrink(&budget) }
}
