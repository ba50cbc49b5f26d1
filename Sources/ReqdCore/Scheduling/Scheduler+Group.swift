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
        var onComplete: Box<Delivery>?
        if var request = spec.onComplete {
            request.method = request.method ?? "POST"
            if !(request.headers ?? []).contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
                request.headers = (request.headers ?? []) + ["Content-Type: application/json"]
            }
            onComplete = Box(try makeDelivery(request, field: "on_complete.", firstAttempt: now.instant))
        }
        return Group(
            members: members, concurrency: concurrency, timeout: timeout, deadline: timeout.map { now.instant.advanced(by: $0) },
            onComplete: onComplete)
    }

    /// Starts what is due: retries of running members, then pending members in order while a slot
    /// is free; and puts the group's next need for the timer in the heap.
    mutating func scheduleGroup(_ id: JobID, at now: ClockReading, startIfDue: Bool, into effects: inout [SchedulerEffect]) {
        guard var job = jobs[id], job.state == .active, var group = job.group else { return }
        if startIfDue {
            group.resumeAt = nil
            var sends: [HTTPSend] = []
            for index in group.members.indices where group.members[index].state == .running {
                let delivery = group.members[index].delivery
                if !delivery.inFlight, delivery.nextAttempt <= now.instant {
                    sends.append(startMember(index, of: &group, id: id, at: now))
                }
            }
            var free = group.concurrency - group.running
            while free > 0, group.nextPending < group.members.count {
                let index = group.nextPending
                group.nextPending += 1
                guard group.members[index].state == .pending else { continue }
                group.members[index].state = .running
                sends.append(startMember(index, of: &group, id: id, at: now))
                free -= 1
            }
            job.group = group
            jobs[id] = job
            effects.append(contentsOf: sends.map(SchedulerEffect.send))
        }
        if let next = group.nextFire {
            timers.set(.job(id), priority: next)
        } else {
            timers.remove(.job(id))
        }
    }

    /// Starts a member's next attempt under a fresh group-wide request number.
    private func startMember(_ index: Int, of group: inout Group, id: JobID, at now: ClockReading) -> HTTPSend {
        group.requestsStarted += 1
        group.members[index].wire = group.requestsStarted
        group.members[index].delivery.start(at: now.instant, timeout: configuration.requestTimeoutNanos)
        return HTTPSend(
            job: id, attempt: group.requestsStarted, request: group.members[index].delivery.request, parseJSON: false)
    }

    /// Handles a group's timer: its time limit, unanswered member requests, and due retries.
    mutating func fireGroup(_ job: Job, _ group: Group, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        if let deadline = group.deadline, deadline <= now.instant {
            var ended = job
            var group = group
            for index in group.members.indices {
                switch group.members[index].state {
                case .running:
                    if let wire = group.members[index].wire { effects.append(.abort(job.id, attempt: wire)) }
                    group.members[index].wire = nil
                    group.members[index].delivery.inFlight = false
                    group.members[index].state = .timedOut
                    group.members[index].error = "still running when the group's time limit of \(DurationText.format(nanoseconds: group.timeout ?? 0)) ran out"
                case .pending:
                    group.members[index].state = .notStarted
                    group.members[index].error = "not started before the group's time limit ran out"
                default:
                    break
                }
            }
            ended.group = group
            complete(ended, at: now, into: &effects)
            return
        }
        let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
        for member in group.members where member.state == .running {
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
        guard var job = jobs[id], job.state == .active, var group = job.group, let index = group.member(onWire: number) else {
            return
        }
        var member = group.members[index]
        member.wire = nil
        let (step, answer) = member.delivery.finish(outcome, at: now.instant, random: random.unit())
        member.result = answer.map(makeResult) ?? member.result
        switch step {
        case .succeeded:
            member.state = .succeeded
            member.error = nil
        case .failed(let why, _):
            member.state = .failed
            member.error = why
        case .retry:
            break
        }
        group.members[index] = member
        job.group = group
        jobs[id] = job
        guard member.state.isEnded else {
            scheduleGroup(id, at: now, startIfDue: true, into: &effects)
            return
        }
        let recipients = recipients(of: job)
        if !recipients.isEmpty {
            var event = makeEvent(.member, job, at: now)
            event.member = index
            event.memberState = member.state
            event.status = member.delivery.lastStatus
            event.error = member.error
            effects.append(.deliver(event, to: recipients))
        }
        if group.done == group.members.count {
            complete(job, at: now, into: &effects)
            return
        }
        if job.durable { effects.append(.persist(.update(record(of: job, at: now)))) }
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
