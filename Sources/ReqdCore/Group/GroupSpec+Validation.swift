import ReqdProtocol

extension GroupSpec {
    /// The most members one group may have.
    static let maxMembers = 10_000

    /// The group this registration asks for, its members due at `now`, or why it cannot be.
    func validated(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Group {
        try limits.validateRegistration(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection)
        guard !members.isEmpty else { throw SchedulerError(.badField, "'members' must hold at least one request") }
        guard members.count <= Self.maxMembers else {
            throw SchedulerError(.badField, "'members' holds \(members.count) requests; at most \(Self.maxMembers)")
        }
        var validated: [GroupMember] = []
        validated.reserveCapacity(members.count)
        for (index, var member) in members.enumerated() {
            // A member retries only when it names a policy of its own.
            member.maxAttempts = member.maxAttempts ?? 1
            validated.append(
                GroupMember(delivery: try member.delivery(field: "members[\(index)].", firstAttempt: now.instant, limits: limits)))
        }
        let concurrency = concurrency ?? 4
        guard (1...Self.maxMembers).contains(concurrency) else {
            throw SchedulerError(.badField, "'concurrency' must be between 1 and \(Self.maxMembers), got \(concurrency)")
        }
        let timeout = try timeoutMs.map { value throws(SchedulerError) in try limits.milliseconds("timeout_ms", value, atLeast: 1) }
        let onComplete = try onComplete.map { report throws(SchedulerError) in
            Box(try report.reportDelivery(field: "on_complete.", firstAttempt: now.instant, limits: limits))
        }
        return Group(
            members: validated, concurrency: concurrency, timeout: timeout, deadline: timeout.map { now.instant.advanced(by: $0) },
            onComplete: onComplete)
    }
}

extension GroupSpec: JobSpec {
    var options: JobOptions {
        JobOptions(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection, follow: follow)
    }

    func work(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Job.Work {
        .group(try validated(at: now, limits: limits))
    }
}
