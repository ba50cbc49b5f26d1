import ReqdProtocol

/// Recent `submit`s by fingerprint, each until its window ends, and the other way round.
///
/// The window's end is an entry in the scheduler's timer heap (`.dedupe(job)`), not a sweeper.
struct DedupeIndex: Sendable {
    /// Sharded: a window of a minute at 20,000 submits/s holds over a million of each.
    private var jobs = ShardedDictionary<DedupeKey, JobID>()
    private var keys = ShardedDictionary<JobID, DedupeKey>()
    /// The views of jobs that retention forgot while their windows were open, as they ended
    /// (brief: no result body): a duplicate still gets the job it made, not a second request.
    private var forgottenJobs: [JobID: JobInfo] = [:]

    /// Whether nothing is remembered.
    var isEmpty: Bool { jobs.isEmpty && keys.isEmpty && forgottenJobs.isEmpty }

    /// The entries both maps have room for.
    var capacity: Int { jobs.capacity + keys.capacity }

    /// The job an identical request made inside its window.
    func job(for key: DedupeKey) -> JobID? { jobs[key] }

    /// The ended job a window still answers with after retention forgot it.
    func forgottenJob(_ id: JobID) -> JobInfo? { forgottenJobs[id] }

    /// How many forgotten jobs the windows keep.
    var forgottenCount: Int { forgottenJobs.count }

    /// Whether a job's window is open.
    func remembers(_ id: JobID) -> Bool { keys[id] != nil }

    /// Keeps the view of an ended job that retention is forgetting while its window is open.
    mutating func keepForgotten(_ job: JobInfo) {
        forgottenJobs[JobID(job.id)] = job
    }

    /// Remembers the job a fingerprint made.
    mutating func remember(_ key: DedupeKey, job: JobID) {
        jobs[key] = job
        keys[job] = key
    }

    /// Forgets a job's fingerprint: its window ended, it was cancelled, or it was never stored.
    /// Returns whether there was one.
    @discardableResult
    mutating func forget(_ job: JobID) -> Bool {
        guard let key = keys.removeValue(forKey: job) else { return false }
        if jobs[key] == job { jobs[key] = nil }
        if forgottenJobs.removeValue(forKey: job) != nil, forgottenJobs.isEmpty { forgottenJobs = [:] }
        return true
    }
}

extension DedupeIndex {
    /// Shrinks both maps shard by shard from step `next` on, as far as `budget` goes; true once
    /// every shard has been looked at.
    mutating func shrink(from next: inout Int, _ budget: inout ShrinkBudget) -> Bool {
        let shards = ShardedDictionary<JobID, Int>.shardCount
        if next < shards {
            guard jobs.shrink(from: &next, &budget) else { return false }
        }
        var shard = next - shards
        defer { next = shards + shard }
        return keys.shrink(from: &shard, &budget)
    }
}
