import ReqdProtocol

/// The `metrics` operation: the daemon's gauges, and the caller's jobs and targets that need attention.
extension Scheduler {
    /// Jobs `metrics` lists at most, and its default.
    static let soonestLimit = 100
    static let soonestDefault = 10
    /// Timer entries `metrics` looks at, at most, to find the caller's soonest jobs: the walk stays
    /// well under a millisecond, and it is whole for root, whose every job counts.
    static let soonestExamined = 4_096

    /// `metrics`: everything but the exposition text, which the daemon adds from its counters.
    func metrics(_ request: MetricsRequest, peer: Peer, at now: ClockReading) -> Result<ReplyBody, SchedulerError> {
        let count = request.soonest ?? Self.soonestDefault
        guard (0...Self.soonestLimit).contains(count) else {
            return .failure(SchedulerError(.badField, "'soonest' must be between 0 and \(Self.soonestLimit)"))
        }
        var result = gauges
        result.soonest = soonest(count, visibleTo: peer, at: now)
        result.targets = targets(visibleTo: peer, at: now)
        return .success(.metrics(result))
    }

    /// The daemon-wide counts the metrics' gauges show, over every user's jobs.
    public var gauges: MetricsResult {
        MetricsResult(
            jobs: table.counts(visibleTo: Peer(uid: 0, pid: 0)), heldJobs: network.heldJobs,
            unreachableTargets: network.targets.count, connections: subscriptions.count, soonest: [], targets: [])
    }

    /// The caller's jobs whose next timer comes first.
    private func soonest(_ count: Int, visibleTo peer: Peer, at now: ClockReading) -> [SoonestJob] {
        let entries = timers.smallest(count, examining: Self.soonestExamined) { key in
            guard case .job(let id) = key, let header = table[id] else { return false }
            return header.isActive && peer.mayAccess(ownerUID: header.owner)
        }
        return entries.compactMap { entry in
            guard case .job(let id) = entry.key, let job = job(id) else { return nil }
            return SoonestJob(
                dueAt: now.wall(at: entry.priority), dueInMs: entry.priority.nanoseconds(since: now.instant) / 1_000_000,
                job: JobInfo(job, at: now, brief: true))
        }
    }

    /// The unreachable targets, then the failing ones, of the caller's jobs.
    private func targets(visibleTo peer: Peer, at now: ClockReading) -> [TargetInfo] {
        let unreachable = network.targets
            .compactMap { origin, target -> TargetInfo? in
                let held = peer.uid == 0 ? target.jobs.count + (target.probe == nil ? 0 : 1) : target.owners[peer.uid] ?? 0
                guard held > 0 else { return nil }
                return TargetInfo(target: origin, state: .unreachable, since: now.wall(at: target.since), error: target.error, heldJobs: held)
            }
            .sorted { ($0.heldJobs ?? 0, $1.target) > ($1.heldJobs ?? 0, $0.target) }
        let failing = targetHealth.failing(visibleTo: peer, at: now.instant)
            .filter { network.targets[$0.origin] == nil }
            .map { origin, entry in
                TargetInfo(
                    target: origin, state: .failing, since: now.wall(at: entry.since), failures: entry.failures,
                    lastStatus: entry.lastStatus, error: entry.error)
            }
        return unreachable + failing
    }

    /// Counts the end of a request in its target's health; before the job's machine sees it, since
    /// a group forgets which member a request was for once it is handled.
    mutating func recordTargetHealth(_ outcome: HTTPOutcome, of id: JobID, kind: JobKind, attempt: UInt32, owner: UInt32, at now: Instant) {
        guard targetHealth.cares(about: outcome), let origin = requestOrigin(of: id, kind: kind, attempt: attempt) else { return }
        targetHealth.record(outcome, origin: origin, owner: owner, at: now)
    }

    private func requestOrigin(of id: JobID, kind: JobKind, attempt: UInt32) -> String? {
        let url: String?
        switch kind {
        case .countdown, .schedule: url = nil
        case .poll: url = table.polls[id]?.machine.request.url
        case .request: url = table.deliveries[id]?.machine.request.url
        case .group:
            url = table.groups[id].flatMap { slot in slot.machine.wires[attempt].map { slot.machine.members[$0].delivery.request.url } }
        }
        return url.map { String(RequestURL.origin($0)) }
    }
}
