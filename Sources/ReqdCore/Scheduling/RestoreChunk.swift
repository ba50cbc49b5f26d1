import ReqdProtocol

/// Rows read from the store, made ready for the scheduler off its queue: each row turned into the
/// job it resumes as, oldest first.
///
/// Turning rows into jobs is a good part of a restore's work, and it needs nothing of the
/// scheduler's state, so the threads that make records of the rows do it while the scheduler's
/// queue files the jobs of the chunks before.
public struct RestoreChunk: Sendable {
    /// The jobs in creation order, each with when it ended (nil while it is active).
    var jobs: [(job: Job, endedAt: WallTime?)]
    /// How many rows the store holds in all, for reserving the tables on the first chunk.
    let expecting: Int

    /// The jobs of `records` as they resume at `now`. A row that cannot be read back, or whose id
    /// does not name its kind (it was not written by reqd), is left out.
    public init(
        _ records: [JobRecord], expecting: Int, at now: ClockReading, configuration: SchedulerConfiguration, zones: ZoneProvider = .utcOnly
    ) {
        self.expecting = expecting
        var jobs: [(job: Job, endedAt: WallTime?)] = []
        jobs.reserveCapacity(records.count)
        var rules = RestoredRules()
        for record in records {
            guard JobID(record.id).kind == record.kind,
                let job = Job(record, at: now, maxPollBackoff: configuration.maxPollBackoffNanos, zones: zones, rules: &rules)
            else { continue }
            jobs.append((job, job.state == .active ? nil : record.endedAt ?? record.createdAt))
        }
        jobs.sort { ($0.job.createdAt, $0.job.id) < ($1.job.createdAt, $1.job.id) }
        self.jobs = jobs
    }
}
