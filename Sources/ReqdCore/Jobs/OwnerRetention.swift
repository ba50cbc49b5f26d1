/// One owner's ended jobs in the order they ended, for the per-user retention limit.
///
/// Entries are not removed when a job is forgotten another way or put back by `retry`; whoever
/// pops one checks that the job is still there and still ended.
struct OwnerRetention: Sendable {
    private var ids: [JobID] = []
    private var head = 0

    /// Whether no entry is left.
    var isEmpty: Bool { head == ids.count }

    /// The oldest entry.
    var first: JobID? { head < ids.count ? ids[head] : nil }

    /// Adds the job that ended last.
    mutating func append(_ id: JobID) { ids.append(id) }

    /// Takes the oldest entry.
    mutating func popFirst() -> JobID? {
        guard head < ids.count else { return nil }
        let id = ids[head]
        head += 1
        if head > 1024, head * 2 > ids.count {
            ids.removeFirst(head)
            head = 0
        }
        return id
    }
}
