import Logging
import ReqdProtocol

/// How a job event reads in the daemon's log: its level, its message and its metadata.
///
/// Pure, so it is tested without a logger. A job's problems are `notice`: it failed, timed out or
/// was dead-lettered, or a group completed with failures. Everything a healthy job does
/// (registered, expired, succeeded, cancelled, its polls, retries and members) is `debug`, and
/// countdown ticks `trace`: at the default level the journal carries problems, not one line per
/// healthy job, and `status JOB_ID` and `watch` tell the rest. Metadata keys become journald
/// fields (`job.id` → `JOB_ID`), so `journalctl JOB_ID=…` tells one job's story.
enum JobEventLog {
    /// One log line.
    struct Entry: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// The level `event` is logged at; check it before building an `Entry`.
    static func level(of event: JobEvent) -> Logger.Level {
        switch event.type {
        case .tick: .trace
        case .registered, .expired, .cancelled, .succeeded, .polled, .progress, .retrying, .held, .member, .elapsed, .paused, .resumed:
            .debug
        case .failed, .timedOut, .dead: .notice
        case .completed: event.state == .succeeded || event.state == .completed ? .debug : .notice
        }
    }

    /// The log line for `event`.
    static func entry(for event: JobEvent) -> Entry {
        var metadata: Logger.Metadata = [
            "job.id": "\(event.job)", "job.kind": "\(event.kind.rawValue)", "job.owner": "\(event.owner)",
        ]
        metadata.add("scope", event.scope)
        metadata.add("job.key", event.key)
        let kind = event.kind.rawValue
        let message: String
        switch event.type {
        case .registered:
            let remaining = event.remainingMs.map { " (\(DurationText.format(nanoseconds: $0 * 1_000_000)))" } ?? ""
            message = "\(kind) registered\(remaining)"
        case .tick:
            message = "tick"
        case .expired:
            metadata.add("job.late_by_ms", event.lateByMs)
            metadata.add("job.spawned", event.spawned)
            message = "\(kind) expired"
        case .cancelled:
            metadata.add("job.replaced_by", event.replacedBy)
            message = "\(kind) cancelled: \(event.reason?.rawValue ?? "requested")"
        case .polled, .progress:
            metadata.add("job.polls", event.polls)
            metadata.add("http.status", event.status)
            metadata.add("job.progress", event.progress)
            metadata.add("job.error", event.error)
            message = event.type.rawValue
        case .member:
            metadata.add("group.member", event.member)
            metadata.add("group.member_state", event.memberState?.rawValue)
            metadata.add("http.status", event.status)
            metadata.add("job.error", event.error)
            message = "member ended, \(event.done ?? 0) of \(event.total ?? 0) done"
        case .completed where event.kind == .schedule:
            message = "schedule completed: no elapse left"
        case .completed:
            metadata.add("job.spawned", event.spawned)
            metadata["group.failures"] = "\(event.failures ?? 0)"
            message =
                "group completed: \(event.state?.rawValue ?? "?"), \(event.failures ?? 0) of \(event.total ?? 0) did not succeed"
        case .elapsed:
            metadata.add("job.late_by_ms", event.lateByMs)
            metadata.add("job.spawned", event.spawned)
            metadata.add("schedule.missed", event.missed)
            message = "schedule elapsed: run \(event.run?.rawValue ?? "none")"
        case .paused, .resumed:
            message = "schedule \(event.type.rawValue)"
        case .retrying:
            metadata.add("job.attempt", event.attempt)
            metadata.add("http.status", event.status)
            metadata.add("job.error", event.error)
            message = "attempt failed, retrying"
        case .held:
            metadata.add("job.error", event.error)
            message = "target unreachable, held"
        case .succeeded, .failed, .timedOut, .dead:
            metadata.add("job.polls", event.polls)
            metadata.add("job.attempt", event.attempt)
            metadata.add("http.status", event.status)
            message = "\(kind) \(event.type.rawValue)\(event.error.map { ": \($0)" } ?? "")"
        }
        return Entry(level: level(of: event), message: message, metadata: metadata)
    }
}

extension Logger.Metadata {
    /// Adds `value` under `key`; nothing when there is no value.
    fileprivate mutating func add(_ key: String, _ value: (some CustomStringConvertible)?) {
        if let value { self[key] = "\(value)" }
    }
}
