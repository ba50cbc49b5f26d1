import ReqdProtocol

/// A `list` in progress: a merge, in creation order, of the `ListIndex` leaves its filters select
/// (and, on a store other daemons share, of the rows they hold that the store read), from its
/// cursor on, a slice per turn, so a list never holds the scheduler's queue for long.
///
/// Each slice finds the selected leaves and seeks each to the cursor (O(leaves · log n)), then
/// takes jobs oldest first from a heap over them (O(log leaves) each) and makes at most
/// `viewsPerSlice` views. A job's view is taken when the merge reaches it, so a list that spans
/// turns shows each job as it was at that moment. A page ends at its limit or once its views would
/// pass `maxBytes` of JSON; `next` then names where the following page begins.
struct ListQuery: Sendable {
    /// Views a slice makes, at most: about 0.1 ms on the benchmark machine.
    static let viewsPerSlice = 64
    /// Jobs a slice looks at, at most, when a key's jobs are walked for the other filters.
    static let visitsPerSlice = 512

    let connection: ConnectionID
    let requestID: RequestID
    let filter: ListRequest
    let limit: Int
    let maxBytes: Int
    /// The owners whose jobs the caller sees: one, or nil for every owner (root).
    private let owner: UInt32?
    /// The last job taken or passed over; the merge goes on after it.
    private var cursor: ListIndex.Entry?
    private var views: [JobInfo] = []
    private var bytes = 0
    private var done = false
    /// Where the next page begins, when jobs are left after this one.
    private var next: ListIndex.Entry?
    private var sizer = JSONWriter(capacity: 1024)
    /// Jobs other daemons hold, read from the shared store, in creation order: a run merged
    /// with the leaves. Those before `taken` are behind the cursor.
    private var elsewhere: [(entry: ListIndex.Entry, job: Job)] = []
    private var taken = 0
    /// The last row the store read when it has more after it: the page cannot go past it.
    private var boundary: ListIndex.Entry?

    init(
        _ filter: ListRequest, limit: Int, after cursor: ListIndex.Entry?, owner: UInt32?, maxBytes: Int,
        connection: ConnectionID, requestID: RequestID
    ) {
        self.filter = filter
        self.limit = limit
        self.cursor = cursor
        self.owner = owner
        self.maxBytes = maxBytes
        self.connection = connection
        self.requestID = requestID
    }

    /// Adds the jobs other daemons hold, from the shared store, and where the page must stop when
    /// the store has more rows after those it read.
    mutating func join(_ jobs: [Job], boundary: ListIndex.Entry?) {
        elsewhere = jobs.map { (ListIndex.entry($0.header), $0) }.sorted { $0.entry < $1.entry }
        self.boundary = boundary
    }

    /// The reply, once the page is done.
    var result: JobListResult? {
        done ? JobListResult(jobs: views, next: next.map(ListCursor.text)) : nil
    }

    /// Merges one slice further; afterwards `result` says whether the page is done.
    mutating func advance(in table: JobTable, at now: ClockReading) {
        // The leaves are looked up again each slice: a job that changed state meanwhile may have
        // moved to a leaf that did not exist before.
        let owners = owner.map { [$0] } ?? table.owners
        var heads = HeadHeap(table.listLeaves(for: filter, owners: owners), after: cursor)
        // A key's list holds every state, kind and scope: its jobs are checked one by one.
        let checked = filter.key != nil
        var made = 0
        var visits = 0
        while taken < elsewhere.count, let cursor, elsewhere[taken].entry <= cursor { taken += 1 }
        while made < Self.viewsPerSlice, visits < Self.visitsPerSlice {
            let fromElsewhere = taken < elsewhere.count && heads.first.map { elsewhere[taken].entry < $0 } ?? true
            guard let entry = fromElsewhere ? elsewhere[taken].entry : heads.first else {
                return finish(next: boundary == nil ? nil : cursor)
            }
            if let boundary, entry > boundary { return finish(next: cursor) }
            guard views.count < limit else { return finish(next: cursor) }
            let found: Job?
            if fromElsewhere {
                // A job this daemon took over since the store read it is shown from its table.
                found = table.job(entry.id) == nil ? elsewhere[taken].job : nil
                taken += 1
            } else {
                heads.advanceFirst()
                found = table.job(entry.id)
            }
            visits += 1
            guard let job = found, !checked || matches(job.header) else {
                cursor = entry
                continue
            }
            let view = JobInfo(job, at: now)
            sizer.removeAll()
            view.write(to: &sizer)
            guard views.isEmpty || bytes + sizer.bytes.count <= maxBytes else { return finish(next: cursor) }
            bytes += sizer.bytes.count + 1
            views.append(view)
            made += 1
            cursor = entry
        }
    }

    /// Whether a job of a key's list passes the other filters.
    private func matches(_ header: JobHeader) -> Bool {
        (filter.state.map { $0 == header.state } ?? true) && (filter.kind.map { $0 == header.kind } ?? true)
            && (filter.scope.map { $0 == header.scope } ?? true)
    }

    private mutating func finish(next: ListIndex.Entry?) {
        self.next = next
        done = true
    }
}

extension ListQuery {
    /// The leaves' next entries in a binary min-heap, so taking the oldest costs O(log leaves):
    /// a root `list` merges every owner's leaves.
    struct HeadHeap {
        private var heads: [(leaf: SortedChunks<ListIndex.Entry>, at: SortedChunks<ListIndex.Entry>.Position, entry: ListIndex.Entry)] = []

        init(_ leaves: [SortedChunks<ListIndex.Entry>], after cursor: ListIndex.Entry?) {
            for leaf in leaves {
                let at = leaf.position(after: cursor)
                if let entry = leaf.element(at: at) { heads.append((leaf, at, entry)) }
            }
            for index in stride(from: heads.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        }

        /// The oldest entry not yet taken.
        var first: ListIndex.Entry? { heads.first?.entry }

        /// Moves past the oldest entry.
        mutating func advanceFirst() {
            let next = heads[0].leaf.position(after: heads[0].at)
            if let entry = heads[0].leaf.element(at: next) {
                heads[0].at = next
                heads[0].entry = entry
            } else {
                heads.swapAt(0, heads.count - 1)
                heads.removeLast()
            }
            siftDown(0)
        }

        private mutating func siftDown(_ start: Int) {
            var index = start
            while true {
                var smallest = index
                let left = 2 * index + 1
                if left < heads.count, heads[left].entry < heads[smallest].entry { smallest = left }
                if left + 1 < heads.count, heads[left + 1].entry < heads[smallest].entry { smallest = left + 1 }
                guard smallest != index else { return }
                heads.swapAt(index, smallest)
                index = smallest
            }
        }
    }
}
