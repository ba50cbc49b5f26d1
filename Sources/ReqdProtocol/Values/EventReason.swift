/// Why a job was cancelled (a `cancelled` event, an ended job's `reason`) or held (a `held` event).
public enum EventReason: String, Codable, Sendable, Hashable {
    /// A client asked for it.
    case requested
    /// A newer job with the same key replaced it.
    case superseded
    /// The connection it was bound to closed.
    case connectionClosed = "connection_closed"
    /// Held: its target could not be reached.
    case unreachable
    /// Held: its target's circuit breaker is open, so nothing is sent to it.
    case breakerOpen = "breaker_open"
}
