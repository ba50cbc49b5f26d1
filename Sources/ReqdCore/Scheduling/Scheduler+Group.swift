import ReqdProtocol

extension Scheduler {
    /// The most members one group may have.
    static let maxGroupMembers = 10_000

    /// Validates a group and starts it, or stages it until the store has it when it is durable.
    mutating func registerGroup(
        _ spec: GroupSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let group: Group
        do {
            try validateRegistration(key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral, bindConnection: spec.bindConnection)
            group = try makeGroup(spec, at: now)
            try checkCapacity()
        } catch {
            return .failure(error)
        }
        let job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .group(group), at: now)
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    private func makeGroup(_ spec: GroupSpec, at now: ClockReading) throws(SchedulerError) -> Group {
        guard !spec.members.isEmpty else { throw SchedulerError(.badField, "'members' must hold at least one request") }
        guard spec.members.count <= Self.maxGroupMembers else {
            throw SchedulerError(.badField, "'members' holds \(spec.members.count) requests; at most \(Self.maxGroupMembers)")
        }
        var members: [GroupMember] = []
        members.reserveCapacity(spec.members.count)
        for (index, var member) in spec.members.enumerated() {
            // A member retries only when it names a policy of its own.
            member.maxAttempts = member.maxAttempts ?? 1
            members.append(GroupMember(delivery: try makeDelivery(member, field: "members[\(index)].", firstAttempt: now.instant)))
        }
        let concurrency = spec.concurrency ?? 4
        guard (1...Self.maxGroupMembers).contains(concurrency) else {
            throw SchedulerError(.badField, "'concurrency' must be between 1 and \(Self.maxGroupMembers), got \(concurrency)")
        }
        let timeout = try spec.timeoutMs.map { value throws(SchedulerError) in try milliseconds("timeout_ms", value, atLeast: 1) }
        let onComplete = try spec.onComplete.map { report throws(SchedulerError) in
            Box(try makeDelivery(Self.reporting(report), field: "on_complete.", firstAttempt: now.instant))
        }
        return Group(
            members: members, concurrency: concurrency, timeout: timeout, deadline: timeout.map { now.instant.advanced(by: $0) },
            onComplete: onComplete)
    }

    /// Runs `body` on an active group's state in place.
    ///
    /// The group is taken out of its job while `body` runs, so its member array is uniquely
    /// referenced and changing one member does not copy all of them (which, per answer, made a
    /// group of 1,000 members cost O(n²) copies; BENCHMARKS.md).
    mutating func withGroup<T>(_ id: JobID, _ body: (inout Group) -> T) -> T? {
        guard var job = jobs.removeValue(forKey: id) else { return nil }
        defer { jobs[id] = job }
        guard job.state == .active, case .group(var group) = job.work else { return nil }
        job.work = .countdown(Countdown(deadline: Instant(nanoseconds: 0), tick: 1, lateBy: nil))
        defer { job.work = .group(group) }
        return body(&group)
    }

    /// Starts what is due: retries of running members, then pending members in order while a slot
    /// is free; and puts the group's next need for the timer in the heap.
    mutating func scheduleGroup(_ id: JobID, at now: ClockReading, startIfDue: Bool, into effects: inout [SchedulerEffect]) {
        let timeout = configuration.requestTimeoutNanos
        let result = withGroup(id) { group -> Instant? in
            if startIfDue { effects.append(contentsOf: Self.startDue(&group, id: id, at: now, timeout: timeout).map(SchedulerEffect.send)) }
            return group.nextFire
        }
        guard case .some(let next) = result else { return }
        if let next {
            timers.set(.job(id), priority: next)
        } else {
            timers.remove(.job(id))
        }
    }

    /// Starts retries of running members that are due, then pending members in order while a slot is free.
    private static func startDue(_ group: inout Group, id: JobID, at now: ClockReading, timeout: Int64) -> [HTTPSend] {
        group.resumeAt = nil
        let retries = group.running.filter { index in
            let delivery = group.members[index].delivery
            return !delivery.inFlight && delivery.nextAttempt <= now.instant
        }
        var sends: [HTTPSend] = []
        for index in retries.sorted() {
            let number = group.startAttempt(index, at: now.instant, timeout: timeout)
            sends.append(HTTPSend(job: id, attempt: number, request: group.members[index].delivery.request, parseJSON: false))
        }
        while let index = group.nextToStart() {
            let number = group.startAttempt(index, at: now.instant, timeout: timeout)
            sends.append(HTTPSend(job: id, attempt: number, request: group.members[index].delivery.request, parseJSON: false))
        }
        return sends
    }

    /// Handles a group's timer: its time limit, unanswered member requests, and due retries.
    mutating func fireGroup(_ job: Job, _ group: Group, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let deadline = group.deadline, deadline <= now.instant {
            var ended = job
            var group = group
            let limit = DurationText.format(nanoseconds: group.timeout ?? 0)
            for index in group.members.indices {
                switch group.members[index].state {
                case .running:
                    if let wire = group.end(index, as: .timedOut, error: "still running when the group's time limit of \(limit) ran out") {
                        effects.append(.abort(job.id, attempt: wire))
                    }
                case .pending:
                    group.end(index, as: .notStarted, error: "not started before the group's time limit ran out")
                default:
                    break
                }
            }
            ended.group = group
            complete(ended, at: now, into: &effects)
            return
        }
        let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
        for index in group.running {
            let member = group.members[index]
            if member.delivery.inFlight, let wire = member.wire, let deadline = member.delivery.requestDeadline,
                deadline <= now.instant
            {
                effects.append(.abort(job.id, attempt: wire))
                memberFinished(job.id, request: wire, outcome: .failure("no answer within \(waited)"), at: now, into: &effects)
            }
        }
        scheduleGroup(job.id, at: now, startIfDue: true, into: &effects)
    }

    /// Handles the end of a member's request: the member succeeds, fails or retries; the group
    /// completes when it was the last member running.
    mutating func memberFinished(
        _ id: JobID, request number: UInt32, outcome: HTTPOutcome, at now: ClockReading, into effects: inout [SchedulerEffect]
    ) {
        let jitter = random.unit()
        let bodyBytes = configuration.resultBodyBytes
        let ended = withGroup(id) { group -> (index: Int, member: GroupMember, done: Bool)? in
            guard let (index, _) = group.finishAttempt(number, outcome, at: now, random: jitter, keeping: bodyBytes) else {
                return nil
            }
            return (index, group.members[index], group.isComplete)
        }
        guard let ended = ended.flatMap({ $0 }) else { return }
        if ended.member.state.isEnded {
            // `job` lives only in this block: held across `scheduleGroup`, it would make the member
            // array shared, and the next start would copy all of it.
            guard let job = jobs[id] else { return }
            let recipients = recipients(of: job)
            if !recipients.isEmpty {
                var event = makeEvent(.member, job, at: now)
                event.member = ended.index
                event.memberState = ended.member.state
                event.status = ended.member.delivery.lastStatus
                event.error = ended.member.error
                effects.append(.deliver(event, to: recipients))
            }
            if ended.done {
                complete(job, at: now, into: &effects)
                return
            }
            if job.durable { effects.append(.persist(.groupMember(id.rawValue, index: ended.index, MemberRecord(ended.member)))) }
        }
        scheduleGroup(id, at: now, startIfDue: true, into: &effects)
    }

    /// Ends a group whose members have all ended: `succeeded` only if every one did, else `failed`
    /// with every error. Its `completed` event and its `on_complete` request happen here, once.
    private mutating func complete(_ job: Job, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        var ended = job
        guard var group = job.group else { return }
        let state: JobState = group.failures == 0 ? .succeeded : .failed
        if state == .failed {
            ended.error = "\(group.failures) of \(group.members.count) members did not succeed"
        }
        var spawned: Job?
        if var template = group.onComplete?.value {
            var view = groupInfo(group)
            view.onCompleteJob = nil
            let result: JSONValue = .object([
                "job": .string(job.id.rawValue), "state": .string(state.rawValue), "total": .number(Double(view.total)),
                "done": .number(Double(view.done)), "failures": .number(Double(view.failures)),
                "members": .array(view.members.map(Self.json)), "errors": .array(view.errors.map(Self.json)),
            ])
            template.request.body = Array(result.jsonText.utf8)
            spawned = spawnedJob(template, of: job, at: now)
            group.spawned = spawned?.id
        }
        ended.group = group
        finish(ended, as: state, reason: nil, replacedBy: nil, at: now, into: &effects)
        if let spawned { start(spawned, at: now, into: &effects) }
    }

    /// The wire view of a group.
    func groupInfo(_ group: Group) -> GroupInfo {
        let members = group.members.enumerated().map { index, member in
            MemberInfo(
                index: index, method: member.delivery.request.method, url: member.delivery.request.url, state: member.state,
                attempts: Int(member.delivery.attempts), status: member.result?.status ?? member.delivery.lastStatus,
                body: member.result?.body, truncated: member.result?.truncated, error: member.error)
        }
        let errors = members.compactMap { member in
            member.state.isEnded && member.state != .succeeded
                ? MemberError(index: member.index, state: member.state, error: member.error ?? member.state.rawValue) : nil
        }
        return GroupInfo(
            concurrency: group.concurrency, timeoutMs: group.timeout.map { $0 / 1_000_000 }, total: group.members.count,
            done: group.done, failures: group.failures, members: members, errors: errors, onCompleteJob: group.spawned?.rawValue)
    }

    private static func json(_ member: MemberInfo) -> JSONValue {
        var object: [String: JSONValue] = [
            "index": .number(Double(member.index)), "method": .string(member.method), "url": .string(member.url),
            "state": .string(member.state.rawValue), "attempts": .number(Double(member.attempts)),
        ]
        if let status = member.status { object["status"] = .number(Double(status)) }
        if let body = member.body { object["body"] = .string(body) }
        if let truncated = member.truncated { object["truncated"] = .bool(truncated) }
        if let error = member.error { object["error"] = .string(error) }
        return .object(object)
    }

    private static func json(_ error: MemberError) -> JSONValue {
        .object(["index": .number(Double(error.index)), "state": .string(error.state.rawValue), "error": .string(error.error)])
    }
}
