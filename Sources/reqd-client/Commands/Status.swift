import ArgumentParser
import ReqdProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon summary, or one job in full.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A job id; omit it for the daemon summary.")
    var job: String?

    @Flag(help: "With the summary, each target's limits and live state: tokens, in flight, waiting, pause, breaker, last error, requests in the last minute.")
    var targets = false

    @Flag(help: "With a request or poll job, its last 5 attempts: start, duration, address, status, error and response headers.")
    var attempts = false

    func validate() throws {
        if targets, job != nil { throw ValidationError("--targets goes with the daemon summary, not with a job id") }
        if attempts, job == nil { throw ValidationError("--attempts goes with a job id") }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            if let job {
                let result = try connection.call(.status(StatusRequest(job: job, attempts: attempts ? true : nil)), as: JobResult.self)
                if global.json { Output.json(result) } else { Output.raw(Self.describe(result.job)) }
            } else {
                let summary = try connection.call(.status(StatusRequest(targets: targets ? true : nil)), as: DaemonSummary.self)
                if global.json { Output.json(summary) } else { Output.raw(Self.describe(summary)) }
            }
            return ExitStatus.success
        }
    }

    static func describe(_ job: JobInfo) -> String {
        var rows: [(String, String)] = [
            ("id", job.id), ("kind", job.kind.rawValue), ("state", job.state.rawValue), ("owner", "uid \(job.owner)"),
        ]
        if let key = job.key { rows.append(("key", key)) }
        if let scope = job.scope { rows.append(("scope", scope)) }
        rows.append(("durable", job.durable ? "yes" : "no (ephemeral)"))
        rows.append(("created", job.createdAt.rfc3339))
        if let deadline = job.deadline { rows.append(("deadline", deadline.rfc3339)) }
        if let remaining = job.remainingMs { rows.append(("remaining", EventRenderer.clock(remaining))) }
        if let tick = job.tickMs { rows.append(("tick", DurationText.format(nanoseconds: tick * 1_000_000))) }
        if let ended = job.endedAt { rows.append(("ended", ended.rfc3339)) }
        if let late = job.lateByMs { rows.append(("late by", "\(late) ms")) }
        if let reason = job.reason { rows.append(("reason", reason.rawValue)) }
        if let replacement = job.replacedBy { rows.append(("replaced by", replacement)) }
        if let poll = job.poll {
            rows.append(("request", EventRenderer.pollURL(poll)))
            if !poll.headerNames.isEmpty { rows.append(("headers", poll.headerNames.joined(separator: ", "))) }
            rows.append(("every", DurationText.format(nanoseconds: poll.everyMs * 1_000_000)))
            rows.append(("until", poll.until))
            if let pointer = poll.progressPointer { rows.append(("progress at", pointer)) }
            if let progress = poll.progress { rows.append(("progress", EventRenderer.progressText(progress))) }
            if let timeout = poll.timeoutMs {
                rows.append(("timeout", DurationText.format(nanoseconds: timeout * 1_000_000) + (poll.deadline.map { " (at \($0.rfc3339))" } ?? "")))
            }
            rows.append(("polls", poll.maxPolls.map { "\(poll.polls) of \($0)" } ?? "\(poll.polls)"))
            rows.append(("failures", "\(poll.failures) in a row (limit \(poll.maxFailures))"))
            if let status = poll.lastStatus { rows.append(("last status", "\(status)")) }
            if let error = poll.lastError { rows.append(("last error", error)) }
            if poll.inFlight { rows.append(("next poll", "a request is out now")) }
            if let next = poll.nextPollAt { rows.append(("next poll", next.rfc3339)) }
        }
        if let request = job.request {
            rows.append(("request", "\(request.method) \(request.url)"))
            if !request.headerNames.isEmpty { rows.append(("headers", request.headerNames.joined(separator: ", "))) }
            if let parent = request.parent { rows.append(("started by", parent)) }
            rows.append(("attempts", "\(request.attempts) of \(request.maxAttempts)"))
            if let status = request.lastStatus { rows.append(("last status", "\(status)")) }
            if let error = request.lastError { rows.append(("last error", error)) }
            if request.held == true { rows.append(("next try", "held: the target is unreachable; waiting for the network")) }
            if request.inFlight { rows.append(("next try", "an attempt is out now")) }
            if let next = request.nextAttemptAt { rows.append(("next try", next.rfc3339)) }
        }
        if let schedule = job.schedule {
            rows.append(("schedule", schedule.expression + (schedule.zone.map { " (\($0))" } ?? "")))
            if let request = schedule.request {
                rows.append(("request", "\(request.method) \(request.url)"))
                if !request.headerNames.isEmpty { rows.append(("headers", request.headerNames.joined(separator: ", "))) }
            } else {
                rows.append(("request", "none: elapse events only"))
            }
            var policy = "overlap \(schedule.overlap.rawValue), catch-up \(schedule.catchUp.rawValue)"
            if let delay = schedule.randomizedDelayMs { policy += ", random delay up to \(DurationText.format(nanoseconds: delay * 1_000_000))" }
            rows.append(("policy", policy))
            if schedule.paused { rows.append(("next", "paused")) }
            for (index, next) in schedule.next.enumerated() { rows.append((index == 0 ? "next" : "", next.rfc3339)) }
            if let last = schedule.lastElapse {
                let late = schedule.lastLateByMs.map { " (late by \(DurationText.format(nanoseconds: Int64($0 * 1e6))))" } ?? ""
                rows.append(("last elapse", last.rfc3339 + late))
            }
            rows.append(("runs", "\(schedule.runs) run, \(schedule.skipped) skipped, \(schedule.missed) missed"))
            if let run = schedule.lastRun {
                let outcome = schedule.running == run ? "running" : schedule.lastOutcome?.rawValue ?? "?"
                rows.append(("last run", "\(run) (\(outcome))"))
            }
        }
        if let error = job.error { rows.append(("error", error)) }
        var text = rows.map { "\($0.0.padding(12))\($0.1)\n" }.joined()
        if let attempts = job.attempts { text += describe(attempts) }
        if let result = job.result {
            text += "result      status \(result.status)\(result.truncated ? " (body cut)" : "")\n"
            if !result.body.isEmpty { text += result.body + (result.body.hasSuffix("\n") ? "" : "\n") }
        }
        return text
    }

    /// The attempt log, oldest first: a line per attempt, then its headers indented. The last
    /// attempt's body is the `result` printed after it.
    static func describe(_ attempts: [AttemptInfo]) -> String {
        guard !attempts.isEmpty else { return "attempts    none logged\n" }
        var text = ""
        for attempt in attempts {
            var line = "attempt \(attempt.number)".padding(12) + attempt.startedAt.rfc3339
            line += "  " + DurationText.format(nanoseconds: Int64(attempt.durationMs * 1e6))
            line += "  " + (attempt.address ?? "no connection")
            if let status = attempt.status { line += "  status \(status)" }
            if let error = attempt.error { line += "  " + error }
            text += line + "\n"
            for header in attempt.headers ?? [] { text += "".padding(14) + header + "\n" }
            if attempt.headersTruncated == true { text += "".padding(14) + "(more headers past 2 KB not kept)\n" }
        }
        return text
    }

    static func describe(_ summary: DaemonSummary) -> String {
        var text = "reqd \(summary.version) (protocol \(summary.protocolVersion))"
        if let pid = summary.pid { text += ", pid \(pid)" }
        text += ", up \(DurationText.format(nanoseconds: summary.uptimeMs * 1_000_000))\n"
        text += "connections: \(summary.connections)\(summary.maxConnections.map { " (at most \($0))" } ?? "")\n"
        let network = summary.network
        if network.state == .offline {
            text += "network: offline since \(network.offlineSince?.rfc3339 ?? "?"): \(network.unreachableTargets) unreachable "
            text += "target\(network.unreachableTargets == 1 ? "" : "s"), \(network.heldJobs) request job\(network.heldJobs == 1 ? "" : "s") held\n"
        } else {
            text += "network: online\n"
        }
        for (kind, states) in summary.jobs.sorted(by: { $0.key < $1.key }) {
            let parts = states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            text += "\(kind.padding(12))\(parts.joined(separator: "   "))\n"
        }
        if let limits = summary.limits {
            let use = { (usage: LimitUsage) in "\(usage.used)/\(usage.limit)" }
            text += "limits (uid \(limits.uid)\(limits.applies ? "" : ", not enforced")): active jobs \(use(limits.activeJobs)), "
            text += "connections \(use(limits.connections)), requests in flight \(use(limits.requestsInFlight))"
            text += limits.requestsWaiting > 0 ? " (\(limits.requestsWaiting) waiting)" : ""
            text += ", retained jobs \(use(limits.retainedJobs))\n"
        }
        if let targets = summary.targets {
            text += targets.isEmpty ? "targets: none used in the last minute\n" : describe(targets)
        }
        return text
    }

    /// One row per target: its table and limits, then its live state.
    static func describe(_ targets: [TargetLimitInfo]) -> String {
        var rows = [["TARGET", "TABLE", "RATE", "BURST", "TOKENS", "IN FLIGHT", "WAITING", "LAST MIN", "BREAKER", "STATE"]]
        for target in targets {
            var state: String
            switch (target.pausedUntil, target.breaker?.state) {
            case (let until?, _): state = "paused until \(until.rfc3339)"
            case (nil, .open?): state = "holding: breaker open"
            case (nil, .halfOpen?): state = "one probe at a time"
            case (nil, .closed?), (nil, nil): state = "sending"
            }
            if let error = target.lastError { state += "; last error: \(error)" }
            rows.append([
                target.target, target.table, target.rate ?? "-", "\(target.burst)", target.tokens.map(String.init) ?? "-",
                "\(target.inFlight)/\(target.concurrency)", "\(target.waiting)", "\(target.requestsLastMinute)",
                target.breaker.map(describe) ?? "-", state,
            ])
        }
        return TextTable.lines(rows).map { $0 + "\n" }.joined()
    }

    /// A breaker in a few words: `closed (3/20 failed)`, `open until …`, `half-open`.
    static func describe(_ breaker: TargetBreakerInfo) -> String {
        switch breaker.state {
        case .closed: "closed (\(breaker.failures)/\(breaker.requests) failed)"
        case .open: breaker.openUntil.map { "open until \($0.rfc3339)" } ?? "open"
        case .halfOpen: "half-open"
        }
    }
}
