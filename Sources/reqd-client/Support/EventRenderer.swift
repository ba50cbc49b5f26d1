import Foundation
import ReqdProtocol

/// Shows a job's events: one live, updating line on a terminal; one line per event otherwise;
/// the raw JSON lines with `--json`.
struct EventRenderer {
    let json: Bool
    let live = Output.isTerminal
    private let decoder = JSONDecoder()

    init(json: Bool) { self.json = json }

    /// Renders one event line; returns the event.
    func render(_ line: [UInt8]) throws -> JobEvent {
        let message = try decoder.decode(EventMessage.self, from: Data(line))
        let event = message.event
        if json {
            Output.raw(String(decoding: line, as: UTF8.self) + "\n")
            return event
        }
        let name = event.key ?? event.job
        if live {
            let terminal = event.type.isTerminal ? "\n" : ""
            Output.raw("\r\u{1B}[K\(name)  \(Self.summary(event))\(terminal)")
        } else {
            Output.line("\(event.at.rfc3339) \(event.type.rawValue) \(event.job) \(name) \(Self.summary(event))")
        }
        return event
    }

    /// Shows the state a job is in before its first event arrives.
    func renderInitial(_ job: JobInfo) {
        guard !json, live, job.state == .active, let remaining = job.remainingMs else { return }
        Output.raw("\r\u{1B}[K\(job.key ?? job.id)  \(Self.clock(remaining)) left")
    }

    static func summary(_ event: JobEvent) -> String {
        switch event.type {
        case .registered, .tick:
            return "\(clock(event.remainingMs ?? 0)) left"
        case .expired:
            if let late = event.lateByMs, late >= 1_000 {
                return "expired (late by \(DurationText.format(nanoseconds: Int64(late * 1e6))))"
            }
            return "expired"
        case .cancelled:
            var text = "cancelled (\(event.reason?.rawValue ?? "requested")"
            if let replacement = event.replacedBy { text += " by \(replacement)" }
            return text + ")"
        }
    }

    /// `07:05` or `1:02:03`, rounding up so `00:01` shows until the end.
    static func clock(_ milliseconds: Int64) -> String {
        let seconds = (max(0, milliseconds) + 999) / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds >= 3600 { return "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))" }
        return "\(two(seconds / 60)):\(two(seconds % 60))"
    }
}
