import ReqdProtocol

extension Scheduler {
    /// Finishes what waited for a commit: starts staged jobs and sends held replies, or refuses them.
    mutating func completeCommit(_ token: CommitToken, failure: String?, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let pending = commits.complete(token) else { return }
        switch pending {
        case .registration(let job, let connection, let requestID, let follow):
            if let failure {
                forgetDedupe(job.id)
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(SchedulerError(.storageUnavailable, "the job was not stored, so it was not accepted: \(failure)"))))
            } else {
                let follower = follow ? Recipient(connection: connection, watch: requestID) : nil
                let body = activate(job, follower: follower, at: now, into: &effects)
                effects.append(.reply(connection, requestID, .success(body)))
            }
        case .spawn(let job):
            // Started even when the write failed: a request sent without a row can only be sent
            // again after a restart (the parent ends again), never lost.
            if let failure { effects.append(.debug(job.id, "the request job was not stored: \(failure)")) }
            _ = activate(job, follower: nil, at: now, into: &effects)
        case .duplicate(let connection, let requestID, let id, let follow):
            guard failure == nil, let job = job(id) else {
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(
                            SchedulerError(
                                .storageUnavailable, "the identical request this one repeats was not stored: \(failure ?? "")"))))
                return
            }
            effects.append(.reply(connection, requestID, .success(duplicateReply(job, connection, requestID, follow: follow, at: now))))
        case .reply(let connection, let requestID, let result):
            if let failure {
                effects.append(
                    .reply(
                        connection, requestID,
                        .failure(
                            SchedulerError(
                                .storageUnavailable,
                                "the change took effect but could not be written, so a restart may undo it: \(failure)"))))
            } else {
                effects.append(.reply(connection, requestID, result))
            }
        }
    }
}
