import ReqdCore

/// The daemon's `STATUS=` line for systemd: sent when the counts change, at most once a second.
///
/// Pure: `offer(_:at:)` says what to send now. A change that comes too soon is held back until
/// `deadline`, which the loop's timer includes, so the last change goes out even when nothing else
/// happens afterwards.
struct SystemdStatus {
    /// The shortest time between two updates.
    static let intervalNanos: Int64 = 1_000_000_000

    private var published = ""
    private var publishedAt = Instant(nanoseconds: .min / 2)
    /// When a held-back change may go out; nil when nothing is held back.
    private(set) var deadline: Instant?

    /// The line for these counts, e.g. `3 active jobs, 1 connections, offline: 2 request jobs held`.
    static func text(activeJobs: Int, connections: Int, heldJobs: Int) -> String {
        var text = "\(activeJobs) active jobs, \(connections) connections"
        if heldJobs > 0 { text += ", offline: \(heldJobs) request jobs held" }
        return text
    }

    /// The line to send now, or nil when it is unchanged or held back (see `deadline`).
    mutating func offer(_ text: String, at now: Instant) -> String? {
        guard text != published else {
            deadline = nil
            return nil
        }
        let due = publishedAt.advanced(by: Self.intervalNanos)
        guard due <= now else {
            deadline = due
            return nil
        }
        published = text
        publishedAt = now
        deadline = nil
        return text
    }
}
