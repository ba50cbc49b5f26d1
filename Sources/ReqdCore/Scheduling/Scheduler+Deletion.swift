import ReqdProtocol

extension Scheduler {
    /// `delete`: forgets an ended or dead job now, from memory and from the store.
    ///
    /// An active job is refused: `cancel` ends it first. A durable job's reply waits until the
    /// store has let it go, so a restart never brings it back.
    mutating func delete(
        _ request: DeleteRequest, peer: Peer, connection: ConnectionID, requestID: RequestID, at now: ClockReading,
        into effects: inout [SchedulerEffect]
    ) -> Result<ReplyBody, SchedulerError>? {
        let id = JobID(request.job)
        guard let job = job(id), peer.mayAccess(ownerUID: job.header.owner) else {
            return .failure(SchedulerError(.unknownJob, "no job '\(request.job)'"))
        }
        guard job.header.state != .active else {
            return .failure(
                SchedulerError(.badField, "only an ended job can be deleted; '\(request.job)' is active: cancel it first"))
        }
        let result = Result<ReplyBody, SchedulerError>.success(.job(JobResult(job: JobInfo(job, at: now))))
        table.leaveRetention(id, endedIn: job.header.state)
        forgetDedupe(id)
        forget(id, into: &effects)
        guard job.durable else { return result }
        effects.append(.commitBarrier(commits.barrier(.reply(connection, requestID, result))))
        return nil
    }
}
