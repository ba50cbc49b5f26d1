import ReqdProtocol

extension Scheduler {
    /// Writes what changed of a durable job after a retry or its end: its changing columns, or
    /// its whole row while an earlier insert of it has not committed.
    mutating func persistProgress(of job: Job, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard commits.isUnstored(job.id) else {
            effects.append(.persist(.progress(job.id.rawValue, JobProgress(job, at: now))))
            return
        }
        effects.append(.persist(.insert(JobRecord(job, at: now))))
        effects.append(.commitBarrier(commits.barrier(.stored(job.id))))
    }

    /// Finishes what waited for a commit: starts staged jobs and sends held replies, or refuses
    /// them. A reply whose connection closed meanwhile is not sent; the job it reports still starts.
    mutating func completeCommit(_ token: CommitToken, failure: String?, at now: ClockReading, into effects: inout [SchedulerEffect]) {
        guard let pending = commits.complete(token) else { return }
        let reply: (ConnectionID, RequestID, Result<ReplyBody, SchedulerError>)
        switch pending {
        case .registration(let job, let connection, let requestID, let follow):
            if let failure {
                forgetDedupe(job.id)
                _ = commits.takeEnding(job.id)
                reply = (
                    connection, requestID,
                    .failure(SchedulerError(.storageUnavailable, "the job was not stored, so it was not accepted: \(failure)"))
                )
            } else {
                let follower = follow ? Recipient(connection: connection, watch: requestID) : nil
                let open = subscriptions.peer(of: connection) != nil
                activate(
                    job, follower: open ? follower : nil, replyTo: open ? (connection, requestID) : nil, at: now, into: &effects,
                    endingAtOnce: commits.takeEnding(job.id))
                return
            }
        case .spawn(let job):
            // Started even when the write failed: a request sent without a row can only be sent
            // again after a restart (the parent ends again), never lost. Its next write is its
            // whole row again.
            if let failure {
                effects.append(.debug(job.id, "the request job was not stored: \(failure)"))
                commits.setUnstored(job.id, true)
            }
            // One that ended while its row was being written (a `cancel`, or a schedule's newer
            // run under `overlap: replace`) starts ended, and nothing goes on the wire.
            activate(job, follower: nil, at: now, into: &effects, endingAtOnce: commits.takeEnding(job.id))
            return
        case .stored(let id):
            if failure == nil { commits.setUnstored(id, false) }
            return
        case .duplicate(let connection, let requestID, let id, let follow):
            if failure == nil, let job = job(id) {
                reply = (connection, requestID, .success(duplicateReply(job, connection, requestID, follow: follow, at: now)))
            } else {
                reply = (
                    connection, requestID,
                    .failure(
                        SchedulerError(.storageUnavailable, "the identical request this one repeats was not stored: \(failure ?? "")"))
                )
            }
        case .reply(let connection, let requestID, let result):
            if let failure {
                reply = (
                    connection, requestID,
                    .failure(
                        SchedulerError(
                            .storageUnavailable, "the change took effect but could not be written, so a restart may undo it: \(failure)"))
                )
            } else {
                reply = (connection, requestID, result)
            }
        }
        guard subscriptions.peer(of: reply.0) != nil else { return }
        effects.append(.reply(reply.0, reply.1, reply.2))
    }
}
