/// Request jobs waiting for a target the network cannot reach, and when to look for its return.
///
/// A target is an origin: scheme, host and port. A job whose attempt finds no route to its target
/// is held here instead of planning a retry, and gets the attempt back. A probe round sends one
/// held job per target; the first sign that a target is reachable (an answer, or any failure
/// other than an unreachable network) releases all of its jobs. Rounds come on every network
/// change the daemon sees, and otherwise after a backoff of 1 s, doubling, capped by
/// `SchedulerConfiguration.probeMaxNanos`.
struct NetworkHold: Sendable {
    /// One unreachable target.
    struct Target: Sendable {
        /// Held jobs, each with the order it was held in.
        var jobs = ShardedDictionary<JobID, UInt64>(shrinksOnRemoval: true)
        /// The job sent as this target's probe, while it is out, and the order it was held in:
        /// a probe that finds the target still unreachable keeps its place.
        var probe: JobID?
        var probeSequence: UInt64 = 0
        /// Why the target was found unreachable.
        var error: String
        /// When it was found unreachable.
        var since: Instant
        /// How many of the held jobs and the probe each owner uid has, so that `status` counts a
        /// user's held jobs without walking them.
        var owners: [UInt32: Int] = [:]
        var isEmpty: Bool { jobs.isEmpty && probe == nil }

        /// Holds `job` (again, when it came back as the probe), keeping `heldJobs` in step.
        mutating func hold(_ job: JobID, owner: UInt32, sequence: UInt64, why: String, heldJobs: inout Int) {
            if probe == job {
                probe = nil
                jobs[job] = probeSequence
            } else {
                if jobs[job] == nil {
                    owners[owner, default: 0] += 1
                    heldJobs += 1
                }
                jobs[job] = sequence
            }
            error = why
        }
    }

    static let firstProbeDelay: Int64 = 1_000_000_000

    var targets: [String: Target] = [:]
    /// When the first target still unreachable became so.
    var offlineSince: Instant? { targets.values.lazy.map(\.since).min() }
    /// The wait before the next timed probe round.
    var probeDelay = firstProbeDelay
    private var sequence: UInt64 = 0

    /// Whether nothing is held.
    var isEmpty: Bool { targets.isEmpty }

    /// Why jobs for `origin` wait, unless `job` is the target's probe; nil when they may go.
    func holdReason(_ origin: String, except job: JobID) -> String? {
        guard let target = targets[origin], target.probe != job else { return nil }
        return target.error
    }

    /// Holds a job; returns whether its target was reachable until now.
    mutating func hold(_ job: JobID, owner: UInt32, origin: String, why: String, at now: Instant) -> Bool {
        sequence += 1
        let isNew = targets[origin] == nil
        // Changed in place: a copy of the target would copy every job it holds.
        targets[origin, default: Target(error: why, since: now)].hold(job, owner: owner, sequence: sequence, why: why, heldJobs: &heldJobs)
        return isNew
    }

    /// Takes the oldest held job of every target with no probe out, and makes it the probe.
    mutating func takeProbes() -> [JobID] {
        var probes: [JobID] = []
        for origin in targets.keys.sorted() {
            guard let target = targets[origin], target.probe == nil,
                let (oldest, held) = target.jobs.min(by: { $0.value < $1.value })
            else { continue }
            targets[origin]?.jobs[oldest] = nil
            targets[origin]?.probe = oldest
            targets[origin]?.probeSequence = held
            probes.append(oldest)
        }
        return probes
    }

    /// Ends the hold of a reachable target; returns its held jobs in the order they were held.
    mutating func release(_ origin: String) -> [JobID]? {
        guard let target = targets.removeValue(forKey: origin) else { return nil }
        heldJobs -= target.jobs.count + (target.probe == nil ? 0 : 1)
        if targets.isEmpty { clear() }
        return target.jobs.sorted { $0.value < $1.value }.map(\.key)
    }

    /// Drops a job that ended (cancelled, say) while held or out as a probe.
    mutating func forget(_ job: JobID, owner: UInt32, origin: String) {
        guard targets[origin] != nil else { return }
        if targets[origin]?.jobs.removeValue(forKey: job) != nil || targets[origin]?.probe == job {
            if targets[origin]?.probe == job { targets[origin]?.probe = nil }
            targets[origin]?.owners.countDown(owner)
            heldJobs -= 1
        }
        if targets[origin]?.isEmpty == true {
            targets[origin] = nil
            if targets.isEmpty { clear() }
        }
    }

    /// How many jobs are held or out as probes.
    private(set) var heldJobs = 0

    /// How many held jobs and probes `owner` has; one lookup per unreachable target.
    func heldJobs(ownedBy owner: UInt32) -> Int { targets.values.reduce(0) { $0 + ($1.owners[owner] ?? 0) } }

    private mutating func clear() {
        probeDelay = Self.firstProbeDelay
    }
}

extension NetworkHold: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { targets.shrinkWithValues(&budget) }
}

extension NetworkHold.Target: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { jobs.shrink(&budget) && owners.shrink(&budget) }
}
