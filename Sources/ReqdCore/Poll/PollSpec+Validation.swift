import ReqdProtocol

extension PollSpec {
    /// The poll this registration asks for, its first request due at `now`, or why it cannot be.
    func validated(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Poll {
        try limits.validateRegistration(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection)
        let request = try limits.validatedRequest(
            method: method, url: url, headers: headers, body: body, bodyBase64: bodyBase64, field: "")
        let every = try limits.milliseconds("every_ms", everyMs, atLeast: limits.minPollEveryNanos)
        let condition: PollCondition
        guard until.utf8.count <= PollCondition.maxBytes else {
            throw SchedulerError(.badCondition, "'until' is longer than \(PollCondition.maxBytes) bytes", column: 1)
        }
        do {
            condition = try PollCondition(parsing: until)
        } catch {
            throw SchedulerError(.badCondition, "'until' \(error.message)", column: error.column)
        }
        var pointer: JSONPointer?
        if let progress {
            guard let parsed = JSONPointer(progress), !progress.isEmpty else {
                throw SchedulerError(
                    .badCondition, "'progress' must be a JSON Pointer such as /progress, got '\(progress.prefix(64))'")
            }
            pointer = parsed
        }
        let timeout = try timeoutMs.map { value throws(SchedulerError) in
            try limits.milliseconds("timeout_ms", value, atLeast: 1)
        }
        if let maxPolls, maxPolls < 1 {
            throw SchedulerError(.badField, "'max_polls' must be at least 1, got \(maxPolls)")
        }
        let maxFailures = maxFailures ?? limits.defaultMaxFailures
        guard maxFailures >= 1 else {
            throw SchedulerError(.badField, "'max_failures' must be at least 1, got \(maxFailures)")
        }
        return Poll(
            request: request, every: every, condition: condition, progressPointer: pointer, timeout: timeout,
            deadline: timeout.map { now.instant.advanced(by: $0) }, maxPolls: maxPolls, maxFailures: maxFailures,
            firstStart: now.instant)
    }
}

extension PollSpec: JobSpec {
    var options: JobOptions {
        JobOptions(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection, follow: follow)
    }

    func work(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Job.Work {
        .poll(try validated(at: now, limits: limits))
    }
}
