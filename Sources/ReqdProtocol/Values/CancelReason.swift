/// Why a job was cancelled.
public enum CancelReason: String, Codable, Sendable, Hashable {
    /// A client asked for it.
    case requested
    /// A newer job with the same key replaced it.
    case superseded
    /// The connection it was bound to closed.
    case connectionClosed = "connection_closed"
}
