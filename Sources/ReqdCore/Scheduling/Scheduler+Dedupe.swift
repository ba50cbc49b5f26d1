import ReqdProtocol

extension Scheduler {
    /// The dedupe window a `submit` asks for, or the configured one; 0 turns dedupe off.
    func dedupeWindow(_ spec: SubmitSpec) throws(SchedulerError) -> Int64 {
        for name in spec.dedupeHeaders ?? [] where !HTTPHeader.isToken(name) {
            throw SchedulerError(.badField, "'dedupe_headers' holds '\(name.prefix(64))', which is not a header name")
        }
        guard let milliseconds = spec.dedupeWindowMs else { return configuration.dedupeWindowNanos }
        guard milliseconds != 0 else { return 0 }
        return try self.milliseconds("dedupe_window_ms", milliseconds, atLeast: 1)
    }

    /// Remembers a job's fingerprint until its window ends: one entry in the timer heap, no sweeper.
    ///
    /// The window counts from the first registration; duplicates inside it do not extend it.
    mutating func rememberDedupe(_ key: DedupeKey, job: JobID, until end: Instant) {
        dedupe[key] = job
        dedupeKeys[job] = key
        timers.set(.dedupe(job), priority: end)
    }

    /// Forgets a job's fingerprint: its window ended, it was cancelled, or it was never stored.
    mutating func forgetDedupe(_ job: JobID) {
        guard let key = dedupeKeys.removeValue(forKey: job) else { return }
        if dedupe[key] == job { dedupe[key] = nil }
        timers.remove(.dedupe(job))
    }

    /// The reply to a deduplicated `submit`: the existing job, marked as such. With `follow`, the
    /// caller also gets that job's events from now on.
    mutating func duplicateReply(
        _ job: Job, _ connection: ConnectionID, _ requestID: RequestID, follow: Bool, at now: ClockReading
    ) -> ReplyBody {
        if follow, job.state == .active, connections[connection] != nil {
            addJobWatcher(job.id, connection: connection, tag: requestID)
        }
        return .registered(RegisterResult(job: info(job, at: now), replaced: nil, deduplicated: true))
    }
}
