import Foundation
import ReqdProtocol

/// What the shared store tells a daemon about jobs other daemons changed, on the channel named
/// after the cluster's schema. Each payload starts with the name of the daemon it is for.
enum ClusterNotice: Sendable, Hashable {
    /// Another daemon ended a job this one holds: a newer job with its key (`replacedBy`), or a
    /// cancel. Payload `HOLDER ID REPLACED_BY`, the last field empty for a cancel.
    case endedElsewhere(job: String, replacedBy: String?)
    /// A job this daemon has waiters or watchers for, held by another daemon, ended. Payload
    /// `WAITER ID`.
    case waitedJobEnded(job: String)
    /// Another daemon has watchers for a job this one holds, and asks for its events. Payload
    /// `HOLDER +ID WATCHER`.
    case watched(job: String, by: String)
    /// Another daemon no longer watches a job this one holds. Payload `HOLDER ~ID WATCHER`.
    case unwatched(job: String, by: String)
    /// Another daemon took the row of an ended job this one held, to retry it. Payload
    /// `HOLDER -ID`.
    case taken(job: String)
    /// A daemon left the cluster: its rows are free to claim now. Payload `* left DAEMON`, for
    /// every daemon.
    case daemonLeft
    /// An event of a job another daemon holds, for this daemon's watchers. Payload
    /// `WATCHER {EVENT}`, the event as JSON.
    case event(JobEvent)

    /// The notice a payload holds for the daemon `holder`; nil when it is for another daemon.
    init?(payload: String, for holder: String) {
        if payload.hasPrefix("* left ") {
            guard payload.dropFirst(7) != holder else { return nil }
            self = .daemonLeft
            return
        }
        guard let space = payload.firstIndex(of: " "), payload[..<space] == holder else { return nil }
        let rest = payload[payload.index(after: space)...]
        if rest.first == "{" {
            guard let event = try? JSONDecoder().decode(JobEvent.self, from: Data(rest.utf8)) else { return nil }
            self = .event(event)
            return
        }
        let fields = rest.split(separator: " ", omittingEmptySubsequences: false)
        switch fields.count {
        case 1 where fields[0].first == "-": self = .taken(job: String(fields[0].dropFirst()))
        case 1: self = .waitedJobEnded(job: String(fields[0]))
        case 2 where fields[0].first == "+": self = .watched(job: String(fields[0].dropFirst()), by: String(fields[1]))
        case 2 where fields[0].first == "~": self = .unwatched(job: String(fields[0].dropFirst()), by: String(fields[1]))
        case 2: self = .endedElsewhere(job: String(fields[0]), replacedBy: fields[1].isEmpty ? nil : String(fields[1]))
        default: return nil
        }
    }

    /// The payload that carries `event` to the daemon `watcher`. An event too large for a notice
    /// (PostgreSQL takes fewer than 8,000 bytes) goes with its error text cut short, or not at all.
    static func payload(_ event: JobEvent, for watcher: String) -> String? {
        var event = event
        for _ in 0..<2 {
            guard let json = try? JSONEncoder().encode(event) else { return nil }
            let payload = watcher + " " + String(decoding: json, as: UTF8.self)
            if payload.utf8.count < 7_900 { return payload }
            event.error = event.error.map { String($0.prefix(200)) }
        }
        return nil
    }
}
