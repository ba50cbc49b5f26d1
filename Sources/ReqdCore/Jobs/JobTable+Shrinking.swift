/// Giving back the capacity of the job tables and their indexes after many jobs have gone.
extension JobTable {
    /// The steps of a shrink: every shard of the five kinds' tables and of the key index, then
    /// the other indexes at once.
    private static var shardedTables: Int { 6 }

    /// Shrinks the tables from step `next` on, as far as `budget` goes.
    ///
    /// - Returns: true once every table has been looked at; `next` says where to go on otherwise.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        let shards = ShardedDictionary<JobID, Int>.shardCount
        while next < Self.shardedTables * shards {
            var shard = next % shards
            let done: Bool
            switch next / shards {
            case 0: done = countdowns.shrink(from: &shard, &budget)
            case 1: done = polls.shrink(from: &shard, &budget)
            case 2: done = deliveries.shrink(from: &shard, &budget)
            case 3: done = groups.shrink(from: &shard, &budget)
            case 4: done = schedules.shrink(from: &shard, &budget)
            default: done = keys.shrink(from: &shard, &budget)
            }
            next = next / shards * shards + shard
            guard done else { return false }
        }
        guard !budget.isSpent else { return false }
        return shrinkIndexes(&budget)
    }

    /// The list index, the scope index and its sets, the retention lists and the counts by owner.
    private mutating func shrinkIndexes(_ budget: inout ShrinkBudget) -> Bool {
        guard dropForgottenRetained(&budget), listIndex.shrink(&budget), activeByScope.shrinkWithValues(&budget), staleRetained.shrink(&budget),
            retainedByOwner.shrinkWithValues(&budget), retained.shrink(&budget),
            retentionGrew.shrink(&budget)
        else { return false }
        return shrinkCounts(&budget)
    }

    /// Drops the entries of forgotten jobs from the front of each owner's retention list, as far
    /// as `budget` goes: `retain` drops only a few per end.
    private mutating func dropForgottenRetained(_ budget: inout ShrinkBudget) -> Bool {
        var lists: [UInt32: OwnerRetention] = [:]
        swap(&lists, &retainedByOwner)
        defer { swap(&lists, &retainedByOwner) }
        var index = lists.values.startIndex
        while index != lists.values.endIndex {
            guard lists.values[index].dropForgotten(&budget, isHeld: { self[$0] != nil }) else { return false }
            index = lists.values.index(after: index)
        }
        return true
    }
}
