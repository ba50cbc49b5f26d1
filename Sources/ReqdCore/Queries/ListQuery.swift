import ReqdProtocol

/// A `list` in progress: it walks the jobs oldest first, a slice per turn, so a list over many
/// jobs never holds the scheduler's queue for long.
///
/// Each slice visits at most `visitsPerSlice` jobs and makes at most `viewsPerSlice` views. A job's
/// view is taken when the walk reaches it, so a list that spans turns shows each job as it was at
/// that moment, and jobs created after the list started are not in it.
struct ListQuery: Sendable {
    /// Jobs a slice looks at, at most: about 0.4 ms on the benchmark machine (a look copies the
    /// job's header out of its table), so a `status` that lands behind a slice waits little.
    static let visitsPerSlice = 512
    /// Views a slice makes, at most: a view costs far more than a look.
    static let viewsPerSlice = 64

    let connection: ConnectionID
    let requestID: RequestID
    let peer: Peer
    let filter: ListRequest
    let limit: Int
    /// The walk's position in `JobTable.order`.
    private var position = 0
    /// Where the walk stops: the jobs created after the list started are not in it.
    private let end: Int
    private var views: [JobInfo] = []
    private var truncated = false

    init(_ filter: ListRequest, limit: Int, peer: Peer, connection: ConnectionID, requestID: RequestID, end: Int) {
        self.filter = filter
        self.limit = limit
        self.peer = peer
        self.connection = connection
        self.requestID = requestID
        self.end = end
    }

    /// The reply, once the walk is done.
    var result: JobListResult? {
        position == end ? JobListResult(jobs: views, truncated: truncated) : nil
    }

    /// Walks one slice further; afterwards `result` says whether the list is done.
    mutating func advance(in table: JobTable, at now: ClockReading) {
        let ids = table.order.ids
        var visits = 0
        var made = 0
        while position < end, visits < Self.visitsPerSlice, made < Self.viewsPerSlice {
            let id = ids[position]
            position += 1
            visits += 1
            guard let header = table[id], matches(header) else { continue }
            guard views.count < limit else {
                truncated = true
                position = end
                break
            }
            guard let job = table.job(id) else { continue }
            views.append(JobInfo(job, at: now))
            made += 1
        }
    }

    private func matches(_ job: JobHeader) -> Bool {
        peer.mayAccess(ownerUID: job.owner) && (filter.state.map { $0 == job.state } ?? true)
            && (filter.kind.map { $0 == job.kind } ?? true) && (filter.scope.map { $0 == job.scope } ?? true)
            && (filter.key.map { $0 == job.key } ?? true)
    }
}
