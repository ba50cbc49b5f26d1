import Foundation
import ReqdProtocol

/// Shows a job's events: one live, updating line on a terminal; one line per event otherwise;
/// the raw JSON lines with `--json`.
///
/// A countdown shows its time left. A poll job shows a progress bar with percent, elapsed time and
/// the number of polls when its progress is a percentage (0 to 100), and a spinner with the last
/// raw value otherwise.
final class EventRenderer {
    let json: Bool
    let live = Output.isTerminal
    private let decoder = JSONDecoder()
    /// When each job shown started, for the elapsed time.
    private var origins: [String: WallTime] = [:]
    private var spin = 0

    init(json: Bool) { self.json = json }

    /// Renders one event line; returns the event.
    func render(_ line: [UInt8]) throws -> JobEvent {
        let message = try decoder.decode(EventMessage.self, from: Data(line))
        let event = message.event
        if json {
            Output.raw(String(decoding: line, as: UTF8.self) + "\n")
            return event
        }
        if event.type == .registered, origins[event.job] == nil { origins[event.job] = event.at }
        let name = event.key ?? event.job
        if live {
            Output.live("\(name)  \(liveSummary(event))", ending: event.type.isTerminal)
        } else {
            Output.line("\(event.at.rfc3339) \(event.type.rawValue) \(event.job) \(name) \(Self.summary(event))")
        }
        return event
    }

    /// Shows the state a job is in before its first event arrives.
    func renderInitial(_ job: JobInfo) {
        origins[job.id] = job.createdAt
        guard !json, live, job.state == .active else { return }
        if let remaining = job.remainingMs {
            Output.live("\(job.key ?? job.id)  \(Self.clock(remaining)) left")
        } else if let poll = job.poll {
            Output.live("\(job.key ?? job.id)  \(Self.pollURL(poll))  waiting for the first answer")
        } else if let group = job.group {
            Output.live("\(job.key ?? job.id)  \(group.done) of \(group.total) done")
        }
    }

    private func liveSummary(_ event: JobEvent) -> String {
        guard event.kind == .poll, !event.type.isTerminal else { return Self.summary(event) }
        var parts: [String] = []
        if let progress = event.progress, (0...100).contains(progress) {
            let width = 24
            let filled = Int((progress / 100 * Double(width)).rounded(.down))
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
                    + Self.percent(progress))
        } else {
            let frames = ["|", "/", "-", "\\"]
            spin += 1
            parts.append(frames[spin % frames.count] + (event.progress.map { " " + Self.number($0) } ?? ""))
        }
        if let origin = origins[event.job] {
            parts.append(Self.clock((event.at.nanosecondsSinceEpoch - origin.nanosecondsSinceEpoch) / 1_000_000))
        }
        parts.append("\(event.polls ?? 0) polls")
        if let failures = event.failures, failures > 0 {
            parts.append("\(failures) failed in a row: \(event.error ?? "")")
        }
        return parts.joined(separator: "  ")
    }

    /// One event in words, for a line of its own.
    static func summary(_ event: JobEvent) -> String {
        switch event.type {
        case .registered where event.kind != .countdown:
            return "registered"
        case .registered, .tick:
            return "\(clock(event.remainingMs ?? 0)) left"
        case .expired:
            var text = "expired"
            if let late = event.lateByMs, late >= 1_000 {
                text += " (late by \(DurationText.format(nanoseconds: Int64(late * 1e6))))"
            }
            if let spawned = event.spawned { text += "; on-expire request \(spawned) started" }
            return text
        case .cancelled:
            var text = "cancelled (\(event.reason?.rawValue ?? "requested")"
            if let replacement = event.replacedBy { text += " by \(replacement)" }
            return text + ")"
        case .member:
            var text = "\(event.done ?? 0) of \(event.total ?? 0) done"
            if let failures = event.failures, failures > 0 { text += ", \(failures) failed" }
            text += "  (member \(event.member ?? 0) \(event.memberState?.rawValue ?? "ended")"
            if let status = event.status { text += ", status \(status)" }
            if let error = event.error, event.memberState != .succeeded { text += ": \(error)" }
            return text + ")"
        case .completed where event.kind == .schedule:
            return "completed: no elapse left"
        case .elapsed:
            var text = "elapsed"
            switch event.run {
            case .started?: text += "; run \(event.spawned ?? "?") started"
            case .skipped?: text += "; skipped (the previous run is still going)"
            case .queued?: text += "; queued behind the run still going"
            case .missed?: text += "; \(event.missed ?? 0) missed, not run (catch-up none)"
            case .none?, nil: break
            }
            if let late = event.lateByMs, late >= 1_000 { text += " (late by \(DurationText.format(nanoseconds: Int64(late * 1e6))))" }
            if let missed = event.missed, missed > 0, event.run != .missed { text += ", \(missed) missed before it" }
            return text
        case .paused, .resumed:
            return event.type.rawValue
        case .completed:
            var text = "completed: \(event.state?.rawValue ?? "?"), \(event.done ?? 0) of \(event.total ?? 0) done"
            if let failures = event.failures, failures > 0 { text += ", \(failures) did not succeed" }
            if let spawned = event.spawned { text += "; on-complete request \(spawned) started" }
            return text
        case .retrying:
            var text = "attempt \(event.attempt ?? 0) failed: \(event.error ?? "")"
            if let status = event.status { text += " (status \(status))" }
            return text + "; retrying"
        case .held:
            if event.reason == .breakerOpen {
                return "held: \(event.error ?? "the target's circuit breaker is open"); waiting for its probe (no attempt used)"
            }
            return "held: \(event.error ?? "the target is unreachable"); waiting for the network (no attempt used)"
        case .polled, .progress:
            var parts = ["polls=\(event.polls ?? 0)"]
            if let status = event.status { parts.append("status=\(status)") }
            if let progress = event.progress {
                parts.append("progress=" + progressText(progress))
            }
            if let error = event.error { parts.append("error=\"\(error)\"") }
            return parts.joined(separator: " ")
        case .succeeded, .failed, .timedOut, .dead:
            var text = event.type.rawValue.replacingOccurrences(of: "_", with: " ")
            var details: [String] = []
            if let polls = event.polls { details.append("\(polls) polls") }
            if let attempt = event.attempt { details.append(attempt == 1 ? "1 attempt" : "\(attempt) attempts") }
            if let status = event.status { details.append("last status \(status)") }
            if !details.isEmpty { text += " after " + details.joined(separator: ", ") }
            if let error = event.error { text += ": \(error)" }
            return text
        }
    }

    /// How a job ended, in one line: `pl_x  succeeded (status 200)` or `pl_x  failed: why`.
    static func ending(_ job: JobInfo) -> String {
        var text = "\(job.id)  \(job.state.rawValue)"
        if let reason = job.reason { text += " (\(reason.rawValue))" }
        if let result = job.result { text += " (status \(result.status))" }
        if let error = job.error { text += ": \(error)" }
        return text
    }

    static func pollURL(_ poll: PollInfo) -> String { "\(poll.method) \(poll.url)" }

    /// A progress value as the user reads it: a percentage when it is in 0 to 100, else the raw number.
    static func progressText(_ value: Double) -> String {
        (0...100).contains(value) ? percent(value) : number(value)
    }

    static func percent(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))%" : String(format: "%.1f%%", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }

    /// `07:05` or `1:02:03`, rounding up so `00:01` shows until the end.
    static func clock(_ milliseconds: Int64) -> String {
        let seconds = (max(0, milliseconds) + 999) / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds >= 3600 { return "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))" }
        return "\(two(seconds / 60)):\(two(seconds % 60))"
    }
}
