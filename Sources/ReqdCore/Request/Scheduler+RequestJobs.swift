import ReqdProtocol

/// The operations only request jobs have: `submit`, with its dedupe window, and `retry` of a dead letter.
extension Scheduler {
    /// Validates a `submit` and starts its request job, or stages it until the store has it; an
    /// identical request inside the dedupe window gets the job it made instead.
    mutating func submit(
        _ spec: SubmitSpec, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let delivery: Delivery
        let window: Int64
        do {
            (delivery, window) = try spec.validated(at: now, limits: configuration)
        } catch {
            return .failure(error)
        }
        var fingerprint: DedupeKey?
        if window > 0 {
            let key = DedupeKey(
                owner: peer.uid, request: delivery.request, headerNames: spec.dedupeHeaders ?? [], key: spec.key, scope: spec.scope,
                ephemeral: spec.ephemeral == true, boundTo: spec.bindConnection == true ? connection : nil)
            if let existing = dedupe.job(for: key) {
                if let job = job(existing) {
                    return .success(duplicateReply(job, connection, requestID, follow: spec.follow ?? false, at: now))
                }
                if let ended = dedupe.forgottenJob(existing) {
                    return .success(.registered(RegisterResult(job: ended, replaced: nil, deduplicated: true)))
                }
                if commits.isStaged(existing) {
                    let token = commits.barrier(.duplicate(connection, requestID, existing, follow: spec.follow ?? false))
                    effects.append(.commitBarrier(token))
                    return nil
                }
            }
            fingerprint = key
        }
        do {
            try checkCapacity(for: peer.uid, key: spec.key)
        } catch {
            return .failure(error)
        }
        let job = newJob(
            owner: peer.uid, key: spec.key, scope: spec.scope, ephemeral: spec.ephemeral,
            bindTo: spec.bindConnection == true ? connection : nil, work: .request(delivery), at: now)
        if let fingerprint {
            // The window counts from the first registration; duplicates inside it do not extend it.
            dedupe.remember(fingerprint, job: job.id)
            timers.set(.dedupe(job.id), priority: now.instant.advanced(by: window))
        }
        return admit(job, connection: connection, requestID: requestID, follow: spec.follow ?? false, at: now, into: &effects)
    }

    /// The reply to a deduplicated `submit`: the existing job, marked as such. With `follow`, the
    /// caller also gets that job's events from now on.
    mutating func duplicateReply(
        _ job: Job, _ connection: ConnectionID, _ requestID: RequestID, follow: Bool, at now: ClockReading
    ) -> ReplyBody {
        if follow, job.state == .active {
            subscriptions.watch(job: job.id, connection: connection, tag: requestID)
        }
        return .registered(RegisterResult(job: JobInfo(job, at: now), replaced: nil, deduplicated: true))
    }

    /// `retry`: puts a dead (or failed) request job back in the queue with fresh attempts, same id.
    mutating func retry(
        _ request: RetryRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let id = JobID(request.job)
        if configuration.clustered, table[id]?.durable ?? true {
            // The store decides which daemon retries a durable job: the one whose retry takes its row.
            if let header = table[id], case .failure(let error) = retryable(header, peer: peer) { return .failure(error) }
            effects.append(.askCluster(ClusterQuery(connection: connection, requestID: requestID, uid: peer.uid, operation: .retry(job: request.job))))
            return nil
        }
        return retryHere(request, peer: peer, connection: connection, requestID: requestID, at: now, into: &effects)
    }

    /// Whether `peer` may retry the job now: its own dead or failed request job, with no other
    /// active job holding its key, and room under the owner's limits.
    func retryable(_ header: JobHeader, peer: Peer) -> Result<Void, SchedulerError> {
        guard peer.mayAccess(ownerUID: header.owner) else { return .failure(SchedulerError(.unknownJob, "no job '\(header.id)'")) }
        guard header.kind == .request, header.state == .dead || header.state == .failed else {
            return .failure(
                SchedulerError(
                    .badField,
                    "only a dead or failed request job can be retried; '\(header.id)' is a \(header.state.rawValue) \(header.kind.rawValue) job"))
        }
        // One active job per owner and key, as a PostgreSQL store's index also insists.
        if let key = header.key, let holder = table.holder(ofKey: key, owner: header.owner), holder != header.id {
            return .failure(
                SchedulerError(
                    .badField,
                    "'\(header.id)' cannot be retried while active job '\(holder.rawValue)' holds its key '\(key)'; cancel that one first"))
        }
        do {
            try checkCapacity(for: header.owner)
        } catch {
            return .failure(error)
        }
        return .success(())
    }

    /// Retries a job this daemon holds.
    mutating func retryHere(
        _ request: RetryRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let id = JobID(request.job)
        guard let header = table[id] else { return .failure(SchedulerError(.unknownJob, "no job '\(request.job)'")) }
        if case .failure(let error) = retryable(header, peer: peer) { return .failure(error) }
        let bound = job(id)?.boundTo
        if let bound, subscriptions.peer(of: bound) == nil {
            return .failure(
                SchedulerError(
                    .badField, "'\(request.job)' was bound to a connection that has closed, and runs only while it is open; submit it again"))
        }
        timers.remove(.job(id))
        table.reactivate(id)
        // Bound again: its connection's close cancels it, as it did before it ended.
        if let bound { subscriptions.bind(id, to: bound) }
        table.deliveries[id]?.machine.retry(at: now.instant)
        if let parent = table.deliveries[id]?.machine.parent, parent.kind == .schedule {
            scheduleRunRetried(parent, run: id, at: now, into: &effects)
        }
        guard let job = job(id) else { return nil }
        effects.append(.deliver(JobEvent(.registered, of: job, at: now), to: subscriptions.recipients(of: job.header)))
        advance(id, at: now, into: &effects)
        let result = Result<ReplyBody, SchedulerError>.success(.job(JobResult(job: JobInfo(job, at: now))))
        guard job.durable else { return result }
        persistProgress(of: job, at: now, into: &effects)
        effects.append(.commitBarrier(commits.barrier(.reply(connection, requestID, result))))
        return nil
    }
}
